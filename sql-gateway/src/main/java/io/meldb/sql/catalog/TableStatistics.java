package io.meldb.sql.catalog;

import io.meldb.txn.api.TxnSession;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The row counts the planner estimates with, one gateway's: {@code ANALYZE} counts a table's rows in a snapshot and
 * keeps the count here by table id (PostgreSQL's {@code pg_class.reltuples}, kept per gateway, not in the
 * catalog tree: a count is an estimate, and writing it would make every ANALYZE a catalog change that aborts
 * concurrent writers). A table never analyzed by this gateway has no count; the planner then assumes its default.
 */
public final class TableStatistics {
    private final ConcurrentHashMap<Integer, Long> rows = new ConcurrentHashMap<>();

    /** Counts the rows of {@code def} as {@code snapshot} sees them and keeps the count; answers it. */
    public long analyze(final TxnSession snapshot, final TableDef def) {
        final AtomicLong n = new AtomicLong();
        TableStore.forEachEntry(snapshot, Keys.dataPrefix(def.id()), io.meldb.sql.codec.KeyCodec.prefixEnd(
                Keys.dataPrefix(def.id())), kv -> n.incrementAndGet());
        rows.put(def.id(), n.get());
        return n.get();
    }

    /** The rows table {@code tableId} had when last analyzed, or -1 when it never was. */
    public long rows(final int tableId) {
        final Long n = rows.get(tableId);
        return n == null ? -1 : n;
    }
}
