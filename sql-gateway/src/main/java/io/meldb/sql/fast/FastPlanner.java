package io.meldb.sql.fast;

import io.meldb.sql.catalog.Catalog;
import io.meldb.sql.catalog.ColumnDef;
import io.meldb.sql.catalog.ColumnDefault;
import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;
import io.meldb.sql.server.ResultColumn;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlDelete;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlExplain;
import org.apache.calcite.sql.SqlExplainLevel;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlUpdate;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.type.SqlTypeName;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Decides whether a statement is one of the key accesses OLTP is made of and, if so, compiles it into a
 * {@link FastPlan}: {@code SELECT cols FROM t WHERE pk = ?}, {@code UPDATE t SET c = ?, d = d + ? WHERE pk = ?},
 * {@code DELETE FROM t WHERE pk = ?} (every primary-key column compared for equality with a parameter or
 * literal, nothing else in the condition) and {@code INSERT INTO t [(cols)] VALUES (?, ...), ...}. Anything else,
 * or anything whose meaning it is not sure of (a literal of another type than its column, an unknown name), is
 * left to Calcite: the answer is null, and the statement runs the general way.
 */
public final class FastPlanner {
    private FastPlanner() {
    }

    /** The plan of {@code sql}, or null when Calcite must run it. Names resolve as the Calcite connection's do. */
    public static FastPlan plan(final String sql, final Catalog catalog, final String database,
                                final String defaultSchema) {
        SqlNode node;
        try {
            node = io.meldb.sql.calcite.MeldLex.parser(sql).parseStmt();
        } catch (SqlParseException | RuntimeException e) {
            return null; // Calcite reports it
        }
        if (node instanceof SqlExplain explain && explain.getDetailLevel() != SqlExplainLevel.NO_ATTRIBUTES) {
            final FastPlan inner = plan(explain.getExplicandum(), catalog, database, defaultSchema);
            return inner == null ? null : new FastPlan.Explain(inner);
        }
        return plan(node, catalog, database, defaultSchema);
    }

    private static FastPlan plan(final SqlNode node, final Catalog catalog, final String database,
                                 final String defaultSchema) {
        final Scope scope = new Scope(catalog, database, defaultSchema);
        try {
            if (node instanceof SqlSelect s) {
                return scope.select(s);
            }
            if (node instanceof SqlUpdate u) {
                return scope.update(u);
            }
            if (node instanceof SqlDelete d) {
                return scope.delete(d);
            }
            if (node instanceof SqlInsert i) {
                return scope.insert(i);
            }
        } catch (NotFast e) {
            return null;
        }
        return null;
    }

    /** Not a statement for the fast path: a control-flow exception local to the planner. */
    private static final class NotFast extends Exception {
        private static final NotFast INSTANCE = new NotFast();

        private NotFast() {
            super(null, null, false, false);
        }
    }

    private static NotFast notFast() {
        return NotFast.INSTANCE;
    }

    /** The names of one statement: its table, alias and parameters. */
    private static final class Scope {
        private final Catalog catalog;
        private final String database;
        private final String defaultSchema;
        private TableDef table;
        private String alias;
        private final List<Integer> parameterTypes = new ArrayList<>();

        Scope(final Catalog catalog, final String database, final String defaultSchema) {
            this.catalog = catalog;
            this.database = database;
            this.defaultSchema = defaultSchema;
        }

        FastPlan select(final SqlSelect s) throws NotFast {
            if (s.isDistinct() || s.getGroup() != null || s.getHaving() != null || s.getWindowList().size() > 0
                    || (s.getOrderList() != null && s.getOrderList().size() > 0) || s.getOffset() != null
                    || s.getFetch() != null || s.getWhere() == null || s.getHints() != null
                    && s.getHints().size() > 0 || s.getQualify() != null) {
                throw notFast();
            }
            from(s.getFrom());
            final List<Integer> output = new ArrayList<>();
            final List<ResultColumn> columns = new ArrayList<>();
            for (SqlNode item : s.getSelectList()) {
                String label = null;
                SqlNode expr = item;
                if (item.getKind() == SqlKind.AS) {
                    final SqlCall as = (SqlCall) item;
                    expr = as.operand(0);
                    label = ((SqlIdentifier) as.operand(1)).getSimple();
                }
                if (!(expr instanceof SqlIdentifier id)) {
                    throw notFast();
                }
                if (id.isStar()) {
                    if (label != null || id.names.size() > 2 || (id.names.size() == 2 && !qualifies(id.names.get(0)))) {
                        throw notFast();
                    }
                    for (int c = 0; c < table.columns().size(); c++) {
                        output.add(c);
                        columns.add(resultColumn(table.columns().get(c), null));
                    }
                    continue;
                }
                final int c = column(id);
                output.add(c);
                columns.add(resultColumn(table.columns().get(c), label));
            }
            final FastOperand[] key = keyCondition(s.getWhere());
            return new FastPlan.PointRead(table, types(), key, ints(output), List.copyOf(columns));
        }

        FastPlan update(final SqlUpdate u) throws NotFast {
            table(u.getTargetTable());
            alias = u.getAlias() == null ? null : u.getAlias().getSimple();
            if (u.getCondition() == null) {
                throw notFast();
            }
            final SqlNodeList targets = u.getTargetColumnList();
            final SqlNodeList sources = u.getSourceExpressionList();
            final FastPlan.FastAssignment[] assignments = new FastPlan.FastAssignment[targets.size()];
            for (int i = 0; i < assignments.length; i++) {
                final int target = column((SqlIdentifier) targets.get(i));
                if (Arrays.stream(table.primaryKey()).anyMatch(k -> k == target)) {
                    throw notFast(); // a key change moves the row: the general path does it
                }
                assignments[i] = assignment(target, sources.get(i));
            }
            final FastOperand[] key = keyCondition(u.getCondition());
            return new FastPlan.PointWrite(table, types(), key, assignments);
        }

        FastPlan delete(final SqlDelete d) throws NotFast {
            table(d.getTargetTable());
            alias = d.getAlias() == null ? null : d.getAlias().getSimple();
            if (d.getCondition() == null) {
                throw notFast();
            }
            final FastOperand[] key = keyCondition(d.getCondition());
            return new FastPlan.PointWrite(table, types(), key, null);
        }

        FastPlan insert(final SqlInsert i) throws NotFast {
            if (i.isUpsert() || !(i.getSource() instanceof SqlBasicCall values)
                    || values.getKind() != SqlKind.VALUES) {
                throw notFast();
            }
            table(i.getTargetTable());
            final int[] targets;
            if (i.getTargetColumnList() == null) {
                targets = new int[table.columns().size()];
                for (int c = 0; c < targets.length; c++) {
                    targets[c] = c;
                }
            } else {
                targets = new int[i.getTargetColumnList().size()];
                for (int c = 0; c < targets.length; c++) {
                    targets[c] = column((SqlIdentifier) i.getTargetColumnList().get(c));
                }
                if (Arrays.stream(targets).distinct().count() != targets.length) {
                    throw notFast();
                }
            }
            // the DEFAULTs of the columns the statement omits (constants, the clock, a sequence's next value); an
            // identity column given a value is Calcite's to refuse (428C9)
            final List<Integer> defaulted = new ArrayList<>();
            for (int c = 0; c < table.columns().size(); c++) {
                final ColumnDef col = table.columns().get(c);
                final int column = c;
                final boolean given = Arrays.stream(targets).anyMatch(t -> t == column);
                if (given && col.identity() == ColumnDef.Identity.ALWAYS) {
                    throw notFast();
                }
                if (!given && col.dflt() != null) {
                    defaulted.add(c);
                }
            }
            final int[] all = Arrays.copyOf(targets, targets.length + defaulted.size());
            for (int d = 0; d < defaulted.size(); d++) {
                all[targets.length + d] = defaulted.get(d);
            }
            final FastOperand[][] rows = new FastOperand[values.operandCount()][];
            for (int r = 0; r < rows.length; r++) {
                final SqlNode row = values.operand(r);
                if (row.getKind() != SqlKind.ROW || ((SqlCall) row).operandCount() != targets.length) {
                    throw notFast();
                }
                rows[r] = new FastOperand[all.length];
                for (int c = 0; c < targets.length; c++) {
                    rows[r][c] = operand(((SqlCall) row).operand(c), table.columns().get(targets[c]).type());
                }
                for (int d = 0; d < defaulted.size(); d++) {
                    final ColumnDefault dflt = table.columns().get(defaulted.get(d)).dflt();
                    rows[r][targets.length + d] = switch (dflt.kind()) {
                        case NOW -> FastOperand.now();
                        case TODAY -> FastOperand.today();
                        case NEXTVAL -> FastOperand.nextval(dflt.qualifiedSequence());
                        case RANDOM_UUID -> FastOperand.randomUuid();
                        case CONSTANT -> FastOperand.literal(dflt.value());
                    };
                }
            }
            return new FastPlan.Insert(table, types(), all, rows);
        }

        /** A condition that names each primary-key column once, each = a parameter or literal, and nothing else. */
        private FastOperand[] keyCondition(final SqlNode where) throws NotFast {
            final List<SqlNode> conjuncts = new ArrayList<>();
            flattenAnd(where, conjuncts);
            final int[] pk = table.primaryKey();
            final FastOperand[] key = new FastOperand[pk.length];
            if (conjuncts.size() != pk.length) {
                throw notFast();
            }
            for (SqlNode c : conjuncts) {
                if (c.getKind() != SqlKind.EQUALS) {
                    throw notFast();
                }
                final SqlCall eq = (SqlCall) c;
                SqlNode col = eq.operand(0);
                SqlNode value = eq.operand(1);
                if (!(col instanceof SqlIdentifier)) {
                    col = eq.operand(1);
                    value = eq.operand(0);
                }
                if (!(col instanceof SqlIdentifier id)) {
                    throw notFast();
                }
                final int column = column(id);
                int slot = -1;
                for (int k = 0; k < pk.length; k++) {
                    if (pk[k] == column) {
                        slot = k;
                    }
                }
                if (slot < 0 || key[slot] != null) {
                    throw notFast();
                }
                key[slot] = operand(value, table.columns().get(column).type());
            }
            return key;
        }

        private static void flattenAnd(final SqlNode node, final List<SqlNode> out) {
            if (node.getKind() == SqlKind.AND) {
                for (SqlNode operand : ((SqlCall) node).getOperandList()) {
                    flattenAnd(operand, out);
                }
            } else {
                out.add(node);
            }
        }

        /** SET c = value, or c = col ± value / c = value + col on a numeric column. */
        private FastPlan.FastAssignment assignment(final int target, final SqlNode source) throws NotFast {
            final ColumnType type = table.columns().get(target).type();
            if ((source.getKind() == SqlKind.PLUS || source.getKind() == SqlKind.MINUS)
                    && source instanceof SqlBasicCall call && numeric(type.type())) {
                SqlNode col = call.operand(0);
                SqlNode value = call.operand(1);
                if (!(col instanceof SqlIdentifier) && source.getKind() == SqlKind.PLUS) {
                    col = call.operand(1);
                    value = call.operand(0);
                }
                if (col instanceof SqlIdentifier id) {
                    final int src = column(id);
                    if (!table.columns().get(src).type().equals(type)) {
                        throw notFast();
                    }
                    final char op = source.getKind() == SqlKind.PLUS ? '+' : '-';
                    return new FastPlan.FastAssignment(target, src, op, operand(value, type));
                }
                throw notFast();
            }
            return new FastPlan.FastAssignment(target, -1, '=', operand(source, type));
        }

        /** A parameter (typed as its column, as Calcite infers it) or a literal of the column's kind. */
        private FastOperand operand(final SqlNode node, final ColumnType type) throws NotFast {
            if (node instanceof SqlDynamicParam p) {
                while (parameterTypes.size() <= p.getIndex()) {
                    parameterTypes.add(null);
                }
                if (parameterTypes.get(p.getIndex()) != null) {
                    throw notFast(); // one parameter in two places: let Calcite type it
                }
                parameterTypes.set(p.getIndex(), type.type().jdbcType());
                return FastOperand.parameter(p.getIndex());
            }
            // niladic functions parse as identifiers (Calcite's validator resolves them later)
            final String fn = node instanceof SqlIdentifier id && id.isSimple() && !id.isComponentQuoted(0)
                    && column(id.getSimple()) < 0 ? id.getSimple().toUpperCase(java.util.Locale.ROOT)
                    : node instanceof SqlCall call && call.operandCount() == 0
                    ? call.getOperator().getName().toUpperCase(java.util.Locale.ROOT) : null;
            if (fn != null) {
                if ((fn.equals("CURRENT_TIMESTAMP") || fn.equals("LOCALTIMESTAMP"))
                        && type.type() == SqlType.TIMESTAMP) {
                    return FastOperand.now();
                }
                if (fn.equals("CURRENT_DATE") && type.type() == SqlType.DATE) {
                    return FastOperand.today();
                }
            }
            if (node.getKind() == SqlKind.MINUS_PREFIX && ((SqlCall) node).operand(0) instanceof SqlNumericLiteral n
                    && numeric(type.type())) {
                return literal(n.bigDecimalValue().negate(), type);
            }
            if (node instanceof SqlNumericLiteral n && numeric(type.type())) {
                return literal(n.bigDecimalValue(), type);
            }
            if (node instanceof SqlCharStringLiteral s && (type.type().isString() || type.type() == SqlType.UUID
                    || type.type() == SqlType.TIME || type.type() == SqlType.TIMESTAMPTZ)) {
                try {
                    return FastOperand.literal(type.coerce(s.getValueAs(String.class)));
                } catch (RuntimeException e) {
                    throw notFast(); // too long: Calcite reports it as it always has
                }
            }
            if (node instanceof SqlLiteral l && l.getTypeName() == SqlTypeName.BOOLEAN
                    && type.type() == SqlType.BOOLEAN) {
                return FastOperand.literal(l.booleanValue());
            }
            if (node instanceof SqlLiteral l && l.getTypeName() == SqlTypeName.NULL) {
                return FastOperand.literal(null);
            }
            throw notFast();
        }

        /** A numeric literal as the column's value: integral for an integer column, or the general path decides. */
        private static FastOperand literal(final BigDecimal v, final ColumnType type) throws NotFast {
            if (v == null) {
                throw notFast();
            }
            if (type.type().isExactInteger() && v.stripTrailingZeros().scale() > 0) {
                throw notFast();
            }
            try {
                return FastOperand.literal(type.coerce(type.type() == SqlType.DOUBLE ? v.doubleValue() : v));
            } catch (io.meldb.sql.codec.ValueException e) {
                if (type.type() == SqlType.REAL) {
                    throw e; // Calcite would store Infinity where PostgreSQL says 22003
                }
                throw notFast();
            } catch (RuntimeException e) {
                throw notFast(); // out of range: Calcite reports it as it always has
            }
        }

        private void from(final SqlNode from) throws NotFast {
            SqlNode t = from;
            if (from != null && from.getKind() == SqlKind.AS) {
                final SqlCall as = (SqlCall) from;
                if (as.operandCount() != 2) {
                    throw notFast();
                }
                t = as.operand(0);
                alias = ((SqlIdentifier) as.operand(1)).getSimple();
            }
            table(t);
        }

        private void table(final SqlNode node) throws NotFast {
            if (!(node instanceof SqlIdentifier id) || id.names.size() > 2) {
                throw notFast();
            }
            final String schema = id.names.size() == 2 ? id.names.get(0) : defaultSchema;
            table = catalog.table(database, schema, id.names.get(id.names.size() - 1));
            if (table == null) {
                throw notFast();
            }
        }

        private boolean qualifies(final String qualifier) {
            return alias != null ? qualifier.equals(alias) : qualifier.equals(table.name());
        }

        /** The position of the table's column of exactly this name, or -1. */
        private int column(final String name) {
            for (int c = 0; c < table.columns().size(); c++) {
                if (table.columns().get(c).name().equals(name)) {
                    return c;
                }
            }
            return -1;
        }

        /** A column of the statement's table, named exactly (as Calcite's case-sensitive lookup does). */
        private int column(final SqlIdentifier id) throws NotFast {
            if (id.isStar() || id.names.size() > 2 || (id.names.size() == 2 && !qualifies(id.names.get(0)))) {
                throw notFast();
            }
            final String name = id.names.get(id.names.size() - 1);
            for (int c = 0; c < table.columns().size(); c++) {
                if (table.columns().get(c).name().equals(name)) {
                    return c;
                }
            }
            throw notFast();
        }

        private int[] types() throws NotFast {
            final int[] out = new int[parameterTypes.size()];
            for (int i = 0; i < out.length; i++) {
                if (parameterTypes.get(i) == null) {
                    throw notFast();
                }
                out[i] = parameterTypes.get(i);
            }
            return out;
        }
    }

    private static boolean numeric(final SqlType t) {
        return t.isExactInteger() || t == SqlType.DECIMAL || t == SqlType.DOUBLE || t == SqlType.REAL;
    }

    private static ResultColumn resultColumn(final ColumnDef c, final String label) {
        final ColumnType t = c.type();
        return new ResultColumn(label != null ? label : c.name(), t.type().jdbcType(),
                t.type() == SqlType.DECIMAL ? t.precision() : t.type() == SqlType.UUID ? SqlType.UUID_MARKER_LENGTH
                        : -1, t.type() == SqlType.DECIMAL ? t.scale() : 0, t);
    }

    private static int[] ints(final List<Integer> list) {
        final int[] out = new int[list.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = list.get(i);
        }
        return out;
    }
}
