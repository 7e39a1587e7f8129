package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.codec.SqlType;
import io.meldb.txn.api.TxnSession;

import java.nio.ByteBuffer;

/**
 * Sequence definitions and their counters in the tree. A sequence's counter ({@link Keys#dataPrefix} of its id)
 * holds the first value no one has reserved; {@link #reserve} takes the next {@link SequenceDef#reservation()}
 * values in the caller's (small, separate) transaction, so each gateway hands out a range of its own without
 * touching the counter again until the range is used up: concurrent inserts never meet on one hot key, and two
 * gateways never hand out the same value (two reservations of the same range conflict in meld, and one retries).
 * Values are never given back, as in PostgreSQL: a rollback, a restart or a gateway that stops leaves gaps.
 */
public final class Sequences {
    private Sequences() {
    }

    /**
     * The definition {@code CREATE SEQUENCE} (or a SERIAL or identity column) makes from {@code options}, with
     * PostgreSQL's defaults: INCREMENT 1; ascending from MINVALUE 1 to the type's maximum, descending from -1 to
     * the type's minimum; START at MINVALUE (ascending) or MAXVALUE (descending); CACHE 1. SQLState 22023 for
     * options that contradict each other.
     */
    public static SequenceDef define(final String db, final String schema, final String name, final int id,
                                     final Ddl.SequenceOptions options, final String ownerTable,
                                     final String ownerColumn) {
        final SqlType type = options.type() == null ? SqlType.BIGINT : options.type();
        final long typeMin = switch (type) {
            case SMALLINT -> Short.MIN_VALUE;
            case INTEGER -> Integer.MIN_VALUE;
            default -> Long.MIN_VALUE;
        };
        final long typeMax = switch (type) {
            case SMALLINT -> Short.MAX_VALUE;
            case INTEGER -> Integer.MAX_VALUE;
            default -> Long.MAX_VALUE;
        };
        final long increment = options.increment() == null ? 1 : options.increment();
        if (increment == 0) {
            throw new SqlStateException("22023", "INCREMENT must not be zero");
        }
        final long min = options.min() != null ? options.min() : increment > 0 ? 1 : typeMin;
        final long max = options.max() != null ? options.max() : increment > 0 ? typeMax : -1;
        if (min < typeMin || max > typeMax) {
            throw new SqlStateException("22023", "MINVALUE (" + min + ") and MAXVALUE (" + max + ") must lie within "
                    + "the range of type " + type.name().toLowerCase(java.util.Locale.ROOT));
        }
        if (min >= max) {
            throw new SqlStateException("22023", "MINVALUE (" + min + ") must be less than MAXVALUE (" + max + ")");
        }
        final long start = options.start() != null ? options.start() : increment > 0 ? min : max;
        if (start < min || start > max) {
            throw new SqlStateException("22023", "START value (" + start + ") cannot be " + (start < min
                    ? "less than MINVALUE (" + min + ")" : "greater than MAXVALUE (" + max + ")"));
        }
        final long cache = options.cache() == null ? 1 : options.cache();
        return new SequenceDef(db, schema, name, id, type, start, increment, min, max, cache, ownerTable,
                ownerColumn);
    }

    /**
     * Reserves the next values of {@code q} in {@code txn}: answers {first, count}, the values first, first +
     * increment, ... (count of them), and moves the counter past them. SQLState 2200H when the sequence has no
     * value left. The transaction also reads the sequence's definition, so a concurrent DROP conflicts with it.
     */
    public static long[] reserve(final TxnSession txn, final SequenceDef q) {
        if (txn.get(Keys.sequenceKey(q.db(), q.schema(), q.name())) == null) {
            throw unknown(q.name());
        }
        final byte[] counterKey = Keys.dataPrefix(q.id());
        final byte[] stored = txn.get(counterKey);
        // a one-byte counter: the sequence went past the end of the long range
        final boolean overflowed = stored != null && stored.length == 1;
        final long first = stored == null ? q.start() : overflowed ? 0 : ByteBuffer.wrap(stored).getLong();
        if (overflowed || first > q.max() || first < q.min()) {
            throw new SqlStateException("2200H", "nextval: reached " + (q.increment() > 0 ? "maximum" : "minimum")
                    + " value of sequence \"" + q.name() + "\" (" + (q.increment() > 0 ? q.max() : q.min()) + ")");
        }
        // how many values lie between first and the bound (floorDiv on a difference that cannot overflow here:
        // both ends lie in [min, max] and the difference is taken towards the bound)
        final long room = q.increment() > 0 ? Long.divideUnsigned(q.max() - first, q.increment())
                : Long.divideUnsigned(first - q.min(), -q.increment());
        final long count = room < 0 || room >= q.reservation() - 1 ? q.reservation() : room + 1;
        final long last = first + (count - 1) * q.increment();
        try {
            txn.put(counterKey, ByteBuffer.allocate(8).putLong(Math.addExact(last, q.increment())).array());
        } catch (ArithmeticException e) {
            txn.put(counterKey, new byte[] {1});
        }
        return new long[] {first, count};
    }

    /** {@code setval}: the next value handed out after this is {@code value} + increment, or {@code value}. */
    public static void set(final TxnSession txn, final SequenceDef q, final long value, final boolean isCalled) {
        if (txn.get(Keys.sequenceKey(q.db(), q.schema(), q.name())) == null) {
            throw unknown(q.name());
        }
        if (value < q.min() || value > q.max()) {
            throw new SqlStateException("22003", "setval: value " + value + " is out of bounds for sequence \""
                    + q.name() + "\" (" + q.min() + ".." + q.max() + ")");
        }
        final long next;
        if (!isCalled) {
            next = value;
        } else if (q.increment() > 0) {
            next = value > Long.MAX_VALUE - q.increment() ? Long.MAX_VALUE : value + q.increment();
        } else {
            next = value < Long.MIN_VALUE - q.increment() ? Long.MIN_VALUE : value + q.increment();
        }
        txn.put(Keys.dataPrefix(q.id()), ByteBuffer.allocate(8).putLong(next).array());
    }

    /** A sequence name as {@code nextval} takes it: {schema or null, name}; SQLState 42602 when malformed. */
    public static String[] parseName(final String text) {
        return ColumnClauses.sequenceName(text);
    }

    public static SqlStateException unknown(final String name) {
        return new SqlStateException("42P01", "relation \"" + name + "\" does not exist");
    }
}
