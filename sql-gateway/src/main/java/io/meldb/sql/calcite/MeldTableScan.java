package io.meldb.sql.calcite;

import io.meldb.sql.catalog.IndexDef;
import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.codec.ColumnType;
import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.enumerable.EnumerableConvention;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableRelImplementor;
import org.apache.calcite.adapter.enumerable.JavaRowFormat;
import org.apache.calcite.adapter.enumerable.PhysType;
import org.apache.calcite.adapter.enumerable.PhysTypeImpl;
import org.apache.calcite.linq4j.tree.BlockBuilder;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexDynamicParam;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.util.BuiltInMethod;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a MeldDB table from the transaction's snapshot: the whole table, or (after {@link MeldFilterRule}) a
 * key range of its primary key or of one index. It runs in Calcite's enumerable convention: the generated code
 * calls {@link MeldRuntime#scan}. EXPLAIN shows the access path, e.g.
 * {@code MeldTableScan(table=[[PUBLIC, T]], index=[PRIMARY KEY], range=[ID = 5])}.
 */
public final class MeldTableScan extends TableScan implements EnumerableRel {
    /** Rows assumed in a table (MeldDB keeps no statistics yet). */
    static final double TABLE_ROWS = 10_000;

    private static final Method SCAN = lookup("scan");

    private final MeldTable meldTable;
    private final ScanSpec spec;

    MeldTableScan(final RelOptCluster cluster, final RelOptTable table, final MeldTable meldTable,
                  final ScanSpec spec) {
        super(cluster, cluster.traitSetOf(EnumerableConvention.INSTANCE), List.of(), table);
        this.meldTable = meldTable;
        this.spec = spec;
    }

    public ScanSpec spec() {
        return spec;
    }

    public MeldTable meldTable() {
        return meldTable;
    }

    MeldTableScan withSpec(final ScanSpec newSpec) {
        return new MeldTableScan(getCluster(), getTable(), meldTable, newSpec);
    }

    @Override
    public RelNode copy(final RelTraitSet traitSet, final List<RelNode> inputs) {
        return this;
    }

    @Override
    public void register(final RelOptPlanner planner) {
        registerRules(planner);
    }

    /** Adds MeldDB's rules to a planner (and removes Calcite's collection-based table modify). */
    static void registerRules(final RelOptPlanner planner) {
        MeldPrograms.registerRules(planner);
    }

    @Override
    public RelWriter explainTerms(final RelWriter pw) {
        return super.explainTerms(pw)
                .itemIf("index", spec.index() == null ? "PRIMARY KEY" : spec.index(), !spec.isFull())
                .itemIf("range", describeRange(), !spec.isFull());
    }

    @Override
    public double estimateRowCount(final RelMetadataQuery mq) {
        final double tableRows = tableRows();
        if (spec.isFull()) {
            return tableRows;
        }
        final int keyColumns = keyColumns().length;
        if (spec.index() == null && spec.equalities().size() == keyColumns) {
            return 1;
        }
        double rows = tableRows;
        for (int i = 0; i < spec.equalities().size(); i++) {
            rows *= 0.05;
        }
        if (spec.lower() != null) {
            rows *= 0.3;
        }
        if (spec.upper() != null) {
            rows *= 0.3;
        }
        return Math.max(rows, 1);
    }

    /** The table's rows as ANALYZE last counted them on this gateway, else {@link #TABLE_ROWS}. */
    private double tableRows() {
        final io.meldb.sql.catalog.TableStatistics statistics = meldTable.schema().context().statistics();
        final long counted = statistics == null ? -1 : statistics.rows(meldTable.def().id());
        return counted < 0 ? TABLE_ROWS : Math.max(counted, 1);
    }

    @Override
    public RelOptCost computeSelfCost(final RelOptPlanner planner, final RelMetadataQuery mq) {
        final double rows = estimateRowCount(mq);
        // an index scan also looks up every row by its primary key
        final double cpu = spec.index() == null ? rows : rows * 3;
        return planner.getCostFactory().makeCost(rows, cpu, rows);
    }

    @Override
    public Result implement(final EnumerableRelImplementor implementor, final Prefer pref) {
        final PhysType physType = PhysTypeImpl.of(implementor.getTypeFactory(), getRowType(), JavaRowFormat.ARRAY,
                false);
        final TableDef def = meldTable.def();
        final int[] keyColumns = keyColumns();
        final List<Expression> equalities = new ArrayList<>();
        for (int i = 0; i < spec.equalities().size(); i++) {
            equalities.add(valueExpression(spec.equalities().get(i), def.columns().get(keyColumns[i]).type()));
        }
        final ColumnType rangeType = spec.equalities().size() < keyColumns.length
                ? def.columns().get(keyColumns[spec.equalities().size()]).type() : null;
        final Expression call = Expressions.call(SCAN,
                DataContext.ROOT,
                Expressions.constant(meldTable.schema().name()),
                Expressions.constant(def.id(), int.class),
                Expressions.constant(indexId(), int.class),
                Expressions.newArrayInit(Object.class, equalities),
                Expressions.constant(spec.lower() != null, boolean.class),
                spec.lower() == null ? Expressions.constant(null) : valueExpression(spec.lower(), rangeType),
                Expressions.constant(spec.lowerInclusive(), boolean.class),
                Expressions.constant(spec.upper() != null, boolean.class),
                spec.upper() == null ? Expressions.constant(null) : valueExpression(spec.upper(), rangeType),
                Expressions.constant(spec.upperInclusive(), boolean.class));
        final BlockBuilder builder = new BlockBuilder();
        if (getRowType().getFieldCount() == 1) {
            // Calcite's own operators above a scan (EnumerableSort, ...) take a one-column row to be a scalar, as
            // their optimized formats are: hand them scalars rather than one-element arrays
            final PhysType scalars = PhysTypeImpl.of(implementor.getTypeFactory(), getRowType(),
                    JavaRowFormat.SCALAR, false);
            builder.add(Expressions.return_(null,
                    physType.convertTo(builder.append("rows", call), JavaRowFormat.SCALAR)));
            return implementor.result(scalars, builder.toBlock());
        }
        builder.add(Expressions.return_(null, call));
        return implementor.result(physType, builder.toBlock());
    }

    /** Positions of the columns of the key this scan reads (primary key or index). */
    int[] keyColumns() {
        final TableDef def = meldTable.def();
        if (spec.index() == null) {
            return def.primaryKey();
        }
        return def.index(spec.index()).columns();
    }

    private int indexId() {
        if (spec.index() == null) {
            return 0;
        }
        final IndexDef index = meldTable.def().index(spec.index());
        return index.id();
    }

    /** Code for a bound's value: a constant for a literal, a lookup of the parameter for {@code ?}. */
    static Expression valueExpression(final RexNode node, final ColumnType type) {
        final RexNode value = MeldFilterRule.stripCast(node);
        if (value instanceof RexDynamicParam param) {
            return Expressions.call(DataContext.ROOT, BuiltInMethod.DATA_CONTEXT_GET.method,
                    Expressions.constant("?" + param.getIndex()));
        }
        final Object constant = MeldFilterRule.literalValue((RexLiteral) value, type);
        return Expressions.constant(constant);
    }

    private String describeRange() {
        final TableDef def = meldTable.def();
        final int[] keyColumns = keyColumns();
        final List<String> terms = new ArrayList<>();
        final int n = spec.equalities().size();
        for (int i = 0; i < n; i++) {
            terms.add(def.columns().get(keyColumns[i]).name() + " = " + display(spec.equalities().get(i)));
        }
        if (n < keyColumns.length) {
            final String column = def.columns().get(keyColumns[n]).name();
            if (spec.lower() != null) {
                terms.add(column + (spec.lowerInclusive() ? " >= " : " > ") + display(spec.lower()));
            }
            if (spec.upper() != null) {
                terms.add(column + (spec.upperInclusive() ? " <= " : " < ") + display(spec.upper()));
            }
        }
        return String.join(" AND ", terms);
    }

    /** A bound as EXPLAIN shows it: 5, 'abc', 2024-01-31, ?0. */
    private static String display(final RexNode node) {
        final RexNode value = MeldFilterRule.stripCast(node);
        if (value instanceof RexLiteral literal) {
            final Object v = literal.getValue();
            if (v instanceof org.apache.calcite.util.NlsString s) {
                return "'" + s.getValue() + "'";
            }
            return String.valueOf(v);
        }
        return value.toString();
    }

    private static Method lookup(final String name) {
        for (Method m : MeldRuntime.class.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new IllegalStateException("no MeldRuntime." + name);
    }

    static Method runtimeMethod(final String name) {
        return lookup(name);
    }

    /** The public static method {@code name} of {@code owner}, which generated code calls. */
    static Method runtimeMethod(final Class<?> owner, final String name) {
        for (Method m : owner.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new IllegalStateException("no " + owner.getSimpleName() + "." + name);
    }
}
