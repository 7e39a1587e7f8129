package io.meldb.sql.catalog;

/**
 * A sequence as stored in the catalog ({@code CREATE SEQUENCE}, or the one a SERIAL or identity column owns):
 * where it starts, its step and bounds, and how many values a gateway reserves at a time ({@code cache}, at least
 * {@link #MIN_RESERVATION}). {@code id} names the key of its counter ({@link Keys#dataPrefix}): the first value
 * no gateway has reserved yet. {@code ownerTable}/{@code ownerColumn} are set for a sequence a column owns (it is
 * dropped with its table), null otherwise. {@code type} is its AS type (smallint, integer or bigint).
 */
public record SequenceDef(String db, String schema, String name, int id, io.meldb.sql.codec.SqlType type, long start,
                          long increment, long min, long max, long cache, String ownerTable, String ownerColumn) {
    /** The fewest values a gateway reserves in one transaction, so that inserts do not meet on one counter. */
    public static final long MIN_RESERVATION = 32;

    /** How many values one reservation takes. */
    public long reservation() {
        return Math.max(cache, MIN_RESERVATION);
    }
}
