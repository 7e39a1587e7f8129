package io.meldb.sql.fast;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.ColumnDef;
import io.meldb.sql.catalog.ForeignKeys;
import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.catalog.TableStore;
import io.meldb.sql.codec.ByteWriter;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.KeyCodec;
import io.meldb.sql.codec.SqlType;
import io.meldb.sql.server.ResultColumn;
import io.meldb.sql.server.RowCursor;
import io.meldb.txn.api.TxnSession;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;

/**
 * A statement compiled, when it is prepared, into the key accesses it makes: a read of one row by its primary
 * key, an update or delete of one row by its primary key, or an insert of literal or parameter rows. It runs
 * straight against the transaction (no planning, code generation or enumerable pipeline per execution) and
 * gives the answers the Calcite path gives. {@link FastPlanner} decides which statements qualify.
 */
public abstract sealed class FastPlan permits FastPlan.PointRead, FastPlan.PointWrite, FastPlan.Insert,
        FastPlan.Explain {
    private final TableDef planned;
    /** The JDBC type of each parameter ({@link java.sql.Types}), as Calcite would infer it. */
    private final int[] parameterTypes;
    private TableDef storeDef;
    private ForeignKeys storeForeignKeys;
    private TableStore store;

    FastPlan(final TableDef planned, final int[] parameterTypes) {
        this.planned = planned;
        this.parameterTypes = parameterTypes;
    }

    public int tableId() {
        return planned.id();
    }

    public int[] parameterTypes() {
        return parameterTypes;
    }

    /** The result columns; empty for a statement that changes rows. */
    public List<ResultColumn> columns() {
        return List.of();
    }

    /** Whether the statement only reads. */
    public boolean reads() {
        return false;
    }

    /**
     * Runs the statement in {@code txn} against the table as the transaction's catalog has it now. A query answers
     * its rows through {@link #query}; this answers the number of rows changed.
     */
    /**
     * Runs a statement that changes rows, with the session's sequences (for nextval DEFAULTs) and the FOREIGN KEY
     * constraints of the transaction's catalog ({@code foreignKeys}, checked on every row written).
     */
    public long update(final TxnSession txn, final TableDef current, final ForeignKeys foreignKeys,
                       final ParameterValues parameters, final io.meldb.sql.calcite.SequenceAccess sequences) {
        throw new IllegalStateException("not a statement that changes rows");
    }

    /** Runs a query; answers its rows. */
    public RowCursor query(final TxnSession txn, final TableDef current, final ParameterValues parameters) {
        throw new IllegalStateException("not a query");
    }

    /**
     * The rows of the table as {@code current} defines it. The plan holds column positions, so a table whose
     * columns or key changed since planning fails the statement; a new index is fine (it is kept in step).
     */
    final TableStore store(final TableDef current) {
        return store(current, null);
    }

    /** As {@link #store(TableDef)}, enforcing {@code foreignKeys} (null for a statement that only reads). */
    final TableStore store(final TableDef current, final ForeignKeys foreignKeys) {
        if (current != storeDef || foreignKeys != storeForeignKeys) {
            if (current == null) {
                throw new SqlStateException("42P01", "the table of this statement was dropped; prepare it again");
            }
            if (!current.columns().equals(planned.columns())
                    || !Arrays.equals(current.primaryKey(), planned.primaryKey())) {
                throw new SqlStateException("0A000", "cached plan must not change result type: table "
                        + planned.name() + " changed since this statement was prepared; prepare it again");
            }
            store = foreignKeys == null ? new TableStore(current) : foreignKeys.store(current);
            storeDef = current;
            storeForeignKeys = foreignKeys;
        }
        return store;
    }

    /** The primary key of the row named by the key operands, or null when one of them is NULL (no row). */
    static byte[] key(final TableStore store, final FastOperand[] key, final ParameterValues parameters) {
        return key(store, key, parameters, null);
    }

    /**
     * As above, in {@code reuse} when the key has its length (a statement whose keys are all of one length keeps
     * one array: the transaction API keeps no key it is given). An integer bound unboxed is encoded without a box.
     */
    static byte[] key(final TableStore store, final FastOperand[] key, final ParameterValues parameters,
                      final byte[] reuse) {
        final TableDef def = store.def();
        final int[] pk = def.primaryKey();
        final ByteWriter out = store.beginKey();
        for (int i = 0; i < pk.length; i++) {
            final ColumnType type = def.columns().get(pk[i]).type();
            if (type.integral() && key[i].isLong(parameters)) {
                KeyCodec.encodeLong(out, type.type(), type.coerceLong(key[i].longValue(parameters)));
                continue;
            }
            final Object v = type.coerce(key[i].value(parameters));
            if (v == null) {
                return null;
            }
            store.writeKeyColumn(out, pk[i], v);
        }
        return out.toByteArray(reuse);
    }


    /** A value of the in-flight form (DATE as days, TIMESTAMP as milliseconds) as a {@link RowCursor} value. */
    public static Object external(final ColumnType type, final Object v) {
        if (v == null) {
            return null;
        }
        return switch (type.type()) {
            case DATE -> LocalDate.ofEpochDay((Integer) v);
            case TIMESTAMP -> LocalDateTime.ofEpochSecond(Math.floorDiv((Long) v, 1000L),
                    (int) Math.floorMod((Long) v, 1000L) * 1_000_000, ZoneOffset.UTC);
            case TIME -> java.time.LocalTime.ofNanoOfDay((Integer) v * 1_000_000L);
            case TIMESTAMPTZ -> java.time.Instant.ofEpochMilli((Long) v).atOffset(ZoneOffset.UTC);
            case BYTEA -> ((org.apache.calcite.avatica.util.ByteString) v).getBytes();
            default -> v;
        };
    }

    /** SELECT columns FROM t WHERE every primary-key column = operand. */
    static final class PointRead extends FastPlan {
        private final FastOperand[] key;
        private final int[] output;
        private final List<ResultColumn> columns;
        private final PointRow cursor;
        private byte[] keyBytes;

        PointRead(final TableDef def, final int[] parameterTypes, final FastOperand[] key, final int[] output,
                  final List<ResultColumn> columns) {
            super(def, parameterTypes);
            this.key = key;
            this.output = output;
            this.columns = columns;
            this.cursor = new PointRow(output);
        }

        @Override
        public List<ResultColumn> columns() {
            return columns;
        }

        @Override
        public boolean reads() {
            return true;
        }

        @Override
        public RowCursor query(final TxnSession txn, final TableDef current, final ParameterValues parameters) {
            final TableStore store = store(current);
            // the cursor and key array of the last execution, unless its cursor is still open (a named portal)
            final boolean reuse = !cursor.open;
            final byte[] k = key(store, key, parameters, reuse ? keyBytes : null);
            if (reuse) {
                keyBytes = k;
                return cursor.read(txn, store, k);
            }
            return new PointRow(output).read(txn, store, k);
        }
    }

    /** UPDATE t SET ... WHERE every primary-key column = operand, or DELETE FROM t WHERE the same. */
    static final class PointWrite extends FastPlan {
        private final FastOperand[] key;
        /** null for DELETE. */
        private final FastAssignment[] assignments;

        /** The assignment {@code c = c ± operand} when it is the only one (see {@link FastIncrement}), else null. */
        private final FastAssignment increment;
        private TableStore incrementStore;
        private byte[] keyBytes;
        private io.meldb.core.IntField incrementField;

        PointWrite(final TableDef def, final int[] parameterTypes, final FastOperand[] key,
                   final FastAssignment[] assignments) {
            super(def, parameterTypes);
            this.key = key;
            this.assignments = assignments;
            this.increment = FastIncrement.candidate(assignments);
        }

        @Override
        public long update(final TxnSession txn, final TableDef current, final ForeignKeys foreignKeys,
                           final ParameterValues parameters, final io.meldb.sql.calcite.SequenceAccess sequences) {
            final TableStore store = store(current, foreignKeys);
            final byte[] k = key(store, key, parameters, keyBytes);
            keyBytes = k; // the transaction keeps no key array it is given (TxnSession)
            if (increment != null && k != null && FastIncrement.on()) {
                if (incrementStore != store) {
                    incrementField = FastIncrement.field(store, increment.column());
                    incrementStore = store;
                }
                if (incrementField != null && FastIncrement.apply(txn, k, incrementField, increment,
                        store.def().columns().get(increment.column()).type(), parameters)) {
                    return 1;
                }
            }
            final byte[] payload = k == null ? null : txn.get(k);
            if (payload == null) {
                return 0;
            }
            final Object[] old = store.decodeRow(k, payload);
            if (assignments == null) {
                store.delete(txn, old);
                return 1;
            }
            final Object[] changed = old.clone();
            final List<ColumnDef> columns = store.def().columns();
            for (FastAssignment a : assignments) {
                changed[a.column()] = a.evaluate(old, parameters, columns.get(a.column()).type());
            }
            store.updateAt(txn, k, old, changed); // k is the old row's key: not encoded again
            return 1;
        }
    }

    /** INSERT INTO t [(columns)] VALUES (operands), ... */
    static final class Insert extends FastPlan {
        private final int[] targetColumns;
        private final FastOperand[][] rows;

        Insert(final TableDef def, final int[] parameterTypes, final int[] targetColumns, final FastOperand[][] rows) {
            super(def, parameterTypes);
            this.targetColumns = targetColumns;
            this.rows = rows;
        }

        @Override
        public long update(final TxnSession txn, final TableDef current, final ForeignKeys foreignKeys,
                           final ParameterValues parameters, final io.meldb.sql.calcite.SequenceAccess sequences) {
            final TableStore store = store(current, foreignKeys);
            final int width = store.def().columns().size();
            for (FastOperand[] operands : rows) {
                final Object[] row = new Object[width];
                for (int i = 0; i < targetColumns.length; i++) {
                    row[targetColumns[i]] = operands[i].value(parameters, sequences);
                }
                store.insert(txn, row);
            }
            return rows.length;
        }
    }

    /** EXPLAIN of a statement the fast path runs: one row that names the plan. */
    static final class Explain extends FastPlan {
        private final String text;

        Explain(final FastPlan plan) {
            super(plan.planned, new int[plan.parameterTypes.length]);
            this.text = plan.describe();
        }

        @Override
        public List<ResultColumn> columns() {
            return List.of(new ResultColumn("PLAN", java.sql.Types.VARCHAR, -1, 0));
        }

        @Override
        public boolean reads() {
            return true;
        }

        @Override
        public RowCursor query(final TxnSession txn, final TableDef current, final ParameterValues parameters) {
            return new OneRow(new Object[] {text}, new int[] {0}, null);
        }

        @Override
        String describe() {
            return text;
        }
    }

    /** What EXPLAIN shows, e.g. {@code FastPath(PointRead table=[PUBLIC, T] key=[ID])}. */
    String describe() {
        final StringBuilder key = new StringBuilder();
        for (int c : planned.primaryKey()) {
            key.append(key.length() == 0 ? "" : ", ").append(planned.columns().get(c).name());
        }
        final String kind = this instanceof PointRead ? "PointRead" : this instanceof Insert ? "Insert"
                : "PointWrite";
        return "FastPath(" + kind + " table=[" + planned.schema() + ", " + planned.name() + "]"
                + (this instanceof Insert ? "" : " key=[" + key + "]") + ")";
    }

    /** The one row of a point read, or none. */
    private static final class OneRow implements RowCursor {
        private final Object[] row;
        private final int[] output;
        private final TableDef def;
        private boolean before = true;

        OneRow(final Object[] row, final int[] output, final TableDef def) {
            this.row = row;
            this.output = output;
            this.def = def;
        }

        @Override
        public boolean next() {
            if (before && row != null) {
                before = false;
                return true;
            }
            before = false;
            return false;
        }

        @Override
        public Object value(final int column) {
            final int c = output[column];
            return def == null ? row[c] : external(def.columns().get(c).type(), row[c]);
        }

        @Override
        public void close() {
            // nothing is held
        }
    }

    /** SET column = operand, or column = source ± operand (NULL stays NULL; overflow is 22003). */
    record FastAssignment(int column, int source, char op, FastOperand operand) {
        Object evaluate(final Object[] old, final ParameterValues parameters, final ColumnType type) {
            final Object v = operand.value(parameters);
            if (source < 0) {
                return v;
            }
            final Object base = old[source];
            if (base == null || v == null) {
                return null;
            }
            final Object delta = type.coerce(v);
            final SqlType t = type.type();
            try {
                if (t.isExactInteger()) {
                    final long a = ((Number) base).longValue();
                    final long b = ((Number) delta).longValue();
                    return op == '+' ? Math.addExact(a, b) : Math.subtractExact(a, b);
                }
                if (t == SqlType.DECIMAL) {
                    return op == '+' ? ((BigDecimal) base).add((BigDecimal) delta)
                            : ((BigDecimal) base).subtract((BigDecimal) delta);
                }
                final double a = ((Number) base).doubleValue();
                final double b = ((Number) delta).doubleValue();
                return op == '+' ? a + b : a - b;
            } catch (ArithmeticException e) {
                throw new SqlStateException("22003", type.sqlName().toLowerCase(java.util.Locale.ROOT)
                        + " out of range");
            }
        }
    }
}
