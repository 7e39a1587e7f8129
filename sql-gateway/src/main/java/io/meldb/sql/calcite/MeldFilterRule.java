package io.meldb.sql.calcite;

import io.meldb.sql.catalog.IndexDef;
import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexDynamicParam;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.tools.RelBuilderFactory;
import org.apache.calcite.tools.RelBuilder;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a filter over a full {@link MeldTableScan} into a key-range scan: equality predicates on a prefix of the
 * primary key (or of an index) and a range on the next key column become the scan's bounds; the predicates it
 * consumed leave the filter, the rest stay above the scan. Accepts only comparisons of a column with a literal or
 * a dynamic parameter ({@code col = 5}, {@code ? < col}, ranges that Calcite folded into SEARCH); anything else is
 * left to the filter.
 */
public final class MeldFilterRule extends RelRule<MeldFilterRule.Config> {
    public static final MeldFilterRule INSTANCE = new MeldFilterRule(Config.DEFAULT);

    private MeldFilterRule(final Config config) {
        super(config);
    }

    /** One comparison of a column with a value: {@code column kind value}, the column on the left. */
    private record Term(int conjunct, int column, SqlKind kind, RexNode value) {
    }

    /** The chosen access path: key columns, equalities used, the range terms and the score. */
    private record Path(String index, int[] columns, List<Term> equalities, Term lower, Term upper, int score) {
    }

    @Override
    public void onMatch(final RelOptRuleCall call) {
        final Filter filter = call.rel(0);
        final MeldTableScan scan = call.rel(1);
        final RexBuilder rexBuilder = filter.getCluster().getRexBuilder();
        final TableDef def = scan.meldTable().def();
        final RexNode condition = RexUtil.expandSearch(rexBuilder, null, filter.getCondition());
        final List<RexNode> conjuncts = RelOptUtil.conjunctions(condition);

        final List<Term> terms = new ArrayList<>();
        for (int i = 0; i < conjuncts.size(); i++) {
            final Term term = term(i, conjuncts.get(i), def);
            if (term != null) {
                terms.add(term);
            }
        }
        if (terms.isEmpty()) {
            return;
        }
        Path best = path(null, def.primaryKey(), terms);
        for (IndexDef index : def.indexes()) {
            final Path candidate = path(index.name(), index.columns(), terms);
            if (candidate.score() > best.score()) {
                best = candidate;
            }
        }
        if (best.score() == 0) {
            return;
        }
        final Set<Integer> consumed = new HashSet<>();
        final List<RexNode> equalities = new ArrayList<>();
        for (Term t : best.equalities()) {
            consumed.add(t.conjunct());
            equalities.add(t.value());
        }
        if (best.lower() != null) {
            consumed.add(best.lower().conjunct());
        }
        if (best.upper() != null) {
            consumed.add(best.upper().conjunct());
        }
        final ScanSpec spec = new ScanSpec(best.index(), equalities,
                best.lower() == null ? null : best.lower().value(),
                best.lower() != null && best.lower().kind() == SqlKind.GREATER_THAN_OR_EQUAL,
                best.upper() == null ? null : best.upper().value(),
                best.upper() != null && best.upper().kind() == SqlKind.LESS_THAN_OR_EQUAL);
        final List<RexNode> residual = new ArrayList<>();
        for (int i = 0; i < conjuncts.size(); i++) {
            if (!consumed.contains(i)) {
                residual.add(conjuncts.get(i));
            }
        }
        final RelBuilder builder = call.builder();
        final RelNode result = builder.push(scan.withSpec(spec)).filter(residual).build();
        call.transformTo(result);
    }

    /** The longest equality prefix of {@code columns}, plus a range on the next column. */
    private static Path path(final String index, final int[] columns, final List<Term> terms) {
        final Map<Integer, Term> eq = new HashMap<>();
        final Map<Integer, Term> lower = new HashMap<>();
        final Map<Integer, Term> upper = new HashMap<>();
        for (Term t : terms) {
            switch (t.kind()) {
                case EQUALS -> eq.putIfAbsent(t.column(), t);
                case GREATER_THAN, GREATER_THAN_OR_EQUAL -> lower.putIfAbsent(t.column(), t);
                case LESS_THAN, LESS_THAN_OR_EQUAL -> upper.putIfAbsent(t.column(), t);
                default -> {
                }
            }
        }
        final List<Term> equalities = new ArrayList<>();
        int k = 0;
        while (k < columns.length && eq.containsKey(columns[k])) {
            equalities.add(eq.get(columns[k]));
            k++;
        }
        Term lo = null;
        Term hi = null;
        if (k < columns.length) {
            lo = lower.get(columns[k]);
            hi = upper.get(columns[k]);
        }
        int score = 4 * k + (lo != null ? 1 : 0) + (hi != null ? 1 : 0);
        if (index == null && columns.length > 0 && k == columns.length) {
            score += 2; // a point lookup by primary key beats any index (a table without one has no such lookup)
        }
        return new Path(index, columns, equalities, lo, hi, score);
    }

    /** {@code conjunct} as a column-value comparison the scan can use, or null. */
    private static Term term(final int position, final RexNode conjunct, final TableDef def) {
        if (!(conjunct instanceof RexCall call) || call.getOperands().size() != 2) {
            return null;
        }
        SqlKind kind = call.getKind();
        if (kind != SqlKind.EQUALS && kind != SqlKind.LESS_THAN && kind != SqlKind.LESS_THAN_OR_EQUAL
                && kind != SqlKind.GREATER_THAN && kind != SqlKind.GREATER_THAN_OR_EQUAL) {
            return null;
        }
        RexNode left = widenedColumn(call.getOperands().get(0), def);
        RexNode right = widenedColumn(call.getOperands().get(1), def);
        if (!(left instanceof RexInputRef) && right instanceof RexInputRef) {
            final RexNode swap = left;
            left = right;
            right = swap;
            kind = kind.reverse();
        }
        if (!(left instanceof RexInputRef ref)) {
            return null;
        }
        final ColumnType type = def.columns().get(ref.getIndex()).type();
        if (type.type() == SqlType.CHAR) {
            return null; // CHAR compares with trailing-space padding; left to the filter
        }
        final RexNode value = stripCast(right);
        if (value instanceof RexDynamicParam) {
            return new Term(position, ref.getIndex(), kind, right);
        }
        if (value instanceof RexLiteral literal && !literal.isNull() && literalValue(literal, type) != null) {
            return new Term(position, ref.getIndex(), kind, right);
        }
        return null;
    }

    /**
     * The column under a widening cast that keeps order and equality (SMALLINT to INTEGER, INTEGER to BIGINT or
     * DECIMAL, VARCHAR to a longer VARCHAR), which Calcite adds to compare a column with a wider literal; anything
     * else unchanged.
     */
    private static RexNode widenedColumn(final RexNode node, final TableDef def) {
        if (node.getKind() != SqlKind.CAST || !(node instanceof RexCall c)
                || !(c.getOperands().get(0) instanceof RexInputRef ref)) {
            return node;
        }
        final SqlType from = def.columns().get(ref.getIndex()).type().type();
        final org.apache.calcite.sql.type.SqlTypeName to = c.getType().getSqlTypeName();
        final boolean widening = switch (from) {
            case SMALLINT, INTEGER, BIGINT -> switch (to) {
                case SMALLINT -> from == SqlType.SMALLINT;
                case INTEGER -> from != SqlType.BIGINT;
                case BIGINT -> true;
                case DECIMAL -> true;
                default -> false;
            };
            case VARCHAR -> to == org.apache.calcite.sql.type.SqlTypeName.VARCHAR;
            case DECIMAL -> to == org.apache.calcite.sql.type.SqlTypeName.DECIMAL
                    && c.getType().getScale() >= def.columns().get(ref.getIndex()).type().scale();
            default -> false;
        };
        return widening ? ref : node;
    }

    /** A value without the casts Calcite puts around literals and parameters. */
    static RexNode stripCast(final RexNode node) {
        RexNode n = node;
        while (n.getKind() == SqlKind.CAST && n instanceof RexCall c && c.getOperands().size() == 1) {
            final RexNode inner = c.getOperands().get(0);
            if (!(inner instanceof RexLiteral) && !(inner instanceof RexDynamicParam) && inner.getKind() != SqlKind.CAST) {
                break;
            }
            n = inner;
        }
        return n;
    }

    /**
     * The literal as a value of the column's type (in-flight form), or null when it is not exactly such a value
     * (for example 2.5 against an INTEGER column, which must stay a filter).
     */
    static Object literalValue(final RexLiteral literal, final ColumnType type) {
        try {
            switch (type.type()) {
                case SMALLINT, INTEGER, BIGINT: {
                    final BigDecimal d = literal.getValueAs(BigDecimal.class);
                    if (d == null || d.stripTrailingZeros().scale() > 0) {
                        return null;
                    }
                    return type.coerce(d);
                }
                case DECIMAL: {
                    final BigDecimal d = literal.getValueAs(BigDecimal.class);
                    if (d == null || !type.unconstrained() && d.stripTrailingZeros().scale() > type.scale()) {
                        return null;
                    }
                    return type.coerce(d);
                }
                case DOUBLE:
                    return literal.getValueAs(Double.class);
                case VARCHAR: {
                    final String s = literal.getValueAs(String.class);
                    return s == null || s.codePointCount(0, s.length()) > type.precision() ? null : s;
                }
                case BOOLEAN:
                    return literal.getValueAs(Boolean.class);
                case DATE:
                    return literal.getValueAs(Integer.class);
                case TIMESTAMP:
                    return literal.getValueAs(Long.class);
                default:
                    return null;
            }
        } catch (RuntimeException | AssertionError e) {
            // Calcite asserts when a literal is not of the kind asked for ('x' against an INTEGER column): not a
            // key value, so the comparison stays a filter and its cast fails at run time with 22P02
            return null;
        }
    }

    /** Rule configuration: a Filter directly on a MeldTableScan that has no range yet. */
    public record Config(RelBuilderFactory relBuilderFactory, String description, OperandTransform operandSupplier)
            implements RelRule.Config {
        static final Config DEFAULT = new Config(RelBuilder.proto(org.apache.calcite.plan.Contexts.empty()),
                "MeldFilterRule",
                b0 -> b0.operand(Filter.class).oneInput(b1 -> b1.operand(MeldTableScan.class)
                        .predicate(scan -> scan.spec().isFull()).noInputs()));

        @Override
        public Config withRelBuilderFactory(final RelBuilderFactory factory) {
            return new Config(factory, description, operandSupplier);
        }

        @Override
        public Config withDescription(final String newDescription) {
            return new Config(relBuilderFactory, newDescription, operandSupplier);
        }

        @Override
        public Config withOperandSupplier(final OperandTransform transform) {
            return new Config(relBuilderFactory, description, transform);
        }

        @Override
        public MeldFilterRule toRule() {
            return new MeldFilterRule(this);
        }
    }
}
