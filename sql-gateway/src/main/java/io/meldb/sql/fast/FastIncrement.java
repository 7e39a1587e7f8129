package io.meldb.sql.fast;

import io.meldb.core.IntField;
import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.CheckDef;
import io.meldb.sql.catalog.ColumnDef;
import io.meldb.sql.catalog.ForeignKeyDef;
import io.meldb.sql.catalog.IndexDef;
import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.catalog.TableStore;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.RowCodec;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnSession;

import java.util.Locale;

/**
 * {@code UPDATE t SET c = c ± operand WHERE pk = ...} as an increment of the row ({@link TxnSession#add}; seed 002
 * §3.2): the intention records the delta instead of a read of the row, so concurrent counters do not abort each
 * other in meld. Used only when the statement needs nothing else of the row it writes: one assignment, to a
 * SMALLINT, INTEGER or BIGINT column that no index, CHECK or foreign key involves, in a table whose payload puts the
 * column at a fixed offset (every value column before it is fixed-width and NOT NULL, and no column was altered).
 * The field's bounds are the SQL type's, so meld itself refuses an overflow, which reaches the client as 22003.
 * Anything else, and a row that is absent or whose column is NULL in the transaction's view, takes the ordinary
 * read-modify-write, which also records the read of an absent row.
 */
public final class FastIncrement {
    /** Off with {@code -Dmeldb.sql.increments=false} or {@link #enabled(boolean)}. */
    private static volatile boolean enabled = !"false".equals(System.getProperty("meldb.sql.increments"));

    private FastIncrement() {
    }

    /**
     * Turns the increment path on or off (a benchmark compares it with the read-modify-write it replaces in one run).
     */
    public static void enabled(final boolean on) {
        enabled = on;
    }

    static boolean on() {
        return enabled;
    }

    /** The field an increment of {@code column} addresses in {@code store}'s payloads, or null when it cannot. */
    static IntField field(final TableStore store, final int column) {
        final TableDef def = store.def();
        if (!store.directLayout()) {
            return null;
        }
        final ColumnDef target = def.columns().get(column);
        final int width = switch (target.type().type()) {
            case SMALLINT -> 2;
            case INTEGER -> 4;
            case BIGINT -> 8;
            default -> 0;
        };
        if (width == 0 || involved(def, column)) {
            return null;
        }
        int offset = 0;
        for (int c : def.valueColumns()) {
            if (c == column) {
                return IntField.of(offset + 1, width, true);
            }
            final ColumnDef col = def.columns().get(c);
            final int fixed = RowCodec.fixedWidth(col.type());
            if (fixed == 0 || col.nullable()) {
                return null; // its length varies from row to row, so the field's offset would too
            }
            offset += 1 + fixed;
        }
        return null;
    }

    /** Whether an index, a CHECK or a foreign key reads {@code column} (then the new value must be known). */
    private static boolean involved(final TableDef def, final int column) {
        for (IndexDef index : def.indexes()) {
            for (int c : index.columns()) {
                if (c == column) {
                    return true;
                }
            }
        }
        for (ForeignKeyDef fk : def.foreignKeys()) {
            for (int c : fk.columns()) {
                if (c == column) {
                    return true;
                }
            }
        }
        final String name = def.columns().get(column).name().toLowerCase(Locale.ROOT);
        for (CheckDef check : def.checks()) {
            if (check.sql().toLowerCase(Locale.ROOT).contains(name)) {
                return true; // conservative: any mention of the name
            }
        }
        return false;
    }

    /**
     * Adds the assignment's operand to row {@code key} as an increment. Returns false, having changed nothing, when
     * the ordinary path must run instead (a NULL operand, or a row absent or NULL in the transaction's view).
     */
    static boolean apply(final TxnSession txn, final byte[] key, final IntField field, final FastPlan.FastAssignment a,
                         final ColumnType type, final ParameterValues parameters) {
        final long operand;
        if (a.operand().isLong(parameters)) {
            operand = type.coerceLong(a.operand().longValue(parameters));
        } else {
            final Object v = a.operand().value(parameters);
            if (v == null) {
                return false;
            }
            operand = ((Number) type.coerce(v)).longValue();
        }
        try {
            txn.add(key, field, a.op() == '+' ? operand : Math.negateExact(operand));
            return true;
        } catch (ArithmeticException e) {
            throw outOfRange(type);
        } catch (TxnException e) {
            if (e.error() == TxnError.NOT_APPLICABLE) {
                return false;
            }
            if (e.error() == TxnError.OUT_OF_RANGE) {
                throw outOfRange(type);
            }
            throw e;
        }
    }

    private static SqlStateException outOfRange(final ColumnType type) {
        return new SqlStateException("22003", type.sqlName().toLowerCase(Locale.ROOT) + " out of range");
    }

    /** The one assignment {@code c = c ± operand} of {@code assignments}, or null. */
    static FastPlan.FastAssignment candidate(final FastPlan.FastAssignment[] assignments) {
        if (assignments == null || assignments.length != 1) {
            return null;
        }
        final FastPlan.FastAssignment a = assignments[0];
        return a.source() == a.column() ? a : null;
    }
}
