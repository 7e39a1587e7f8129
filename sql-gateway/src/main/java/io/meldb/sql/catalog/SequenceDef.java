package io.meldb.sql.catalog;

/**
 * A sequence as stored in the catalog ({@code CREATE SEQUENCE}, or the one a SERIAL or identity column owns):
 * where it starts, its step and bounds, and how many values a gateway reserves at a time ({@link #reservation()}). {@code id} names the key of its counter ({@link Keys#dataPrefix}): the first value
 * no gateway has reserved yet. {@code ownerTable}/{@code ownerColumn} are set for a sequence a column owns (it is
 * dropped with its table), null otherwise. {@code type} is its AS type (smallint, integer or bigint).
 */
public record SequenceDef(String db, String schema, String name, int id, io.meldb.sql.codec.SqlType type, long start,
                          long increment, long min, long max, long cache, String ownerTable, String ownerColumn) {
    /**
     * How many values a gateway reserves in one transaction when the sequence's range is wide: a reservation is a
     * commit (a log append and a meld), so it is amortized over this many inserts.
     */
    public static final long RESERVATION = 1000;

    /**
     * How many values one reservation takes: {@code CACHE}, or more: {@link #RESERVATION}, fewer for a narrow
     * sequence (a 1/1024 of its range, so that gaps left by gateways that stop do not use up a SMALLINT sequence).
     */
    public long reservation() {
        final long span = Math.max(1, Long.divideUnsigned(max - min, 1024));
        return Math.max(cache, Math.min(RESERVATION, span));
    }
}
