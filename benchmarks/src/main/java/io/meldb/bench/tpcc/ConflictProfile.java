package io.meldb.bench.tpcc;

import io.meldb.core.ConflictKeys;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * MeldDB's abort causes in a TPC-C window, from meld's {@link ConflictKeys} debug meter: for each conflict abort, the
 * table of the key it conflicted on (a row, or a range for a scan or an absent-key read) and the transaction type,
 * recognized by the smallest and largest table it wrote (new-order writes district .. stock, payment warehouse ..
 * history, delivery customer .. order_line). Table names come from the gateway's pg_class (a table's data keys start
 * with 0x01 and its id; its oid is 16384 + 2 id).
 */
final class ConflictProfile {
    private static final int FIRST_OID = 16384;
    private final Map<Long, String> tables = new HashMap<>();

    private ConflictProfile(final Map<Long, String> tables) {
        this.tables.putAll(tables);
    }

    /** Reads the table names of the database at {@code url} and starts counting (key classes of 5 bytes). */
    static ConflictProfile start(final String url, final Properties props) throws Exception {
        final Map<Long, String> names = new HashMap<>();
        try (Connection c = DriverManager.getConnection(url, props); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT oid, relname FROM pg_class WHERE relkind = 'r'")) {
            while (rs.next()) {
                final long id = (rs.getLong(1) - FIRST_OID) / 2;
                names.put(0x01L << 56 | id << 24, rs.getString(2));
            }
        }
        ConflictKeys.enable(5);
        return new ConflictProfile(names);
    }

    void clear() {
        ConflictKeys.clear();
    }

    void stop() {
        ConflictKeys.disable();
    }

    /** Conflict aborts since the last {@link #clear}, as "type: table (point|range) count" lines, largest first. */
    List<String> lines() {
        final Map<String, Long> merged = new LinkedHashMap<>();
        for (ConflictKeys.Row r : ConflictKeys.rows()) {
            final String line = type(r.writtenLo(), r.writtenHi()) + " on " + table(r.conflictClass())
                + (r.kind() == ConflictKeys.RANGE ? " (range)" : " (row)");
            merged.merge(line, r.count(), Long::sum);
        }
        return merged.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
            .map(e -> String.format(Locale.ROOT, "%s: %d", e.getKey(), e.getValue())).toList();
    }

    private String table(final long keyClass) {
        final String name = tables.get(keyClass);
        return name != null ? name : String.format(Locale.ROOT, "key class %010x", keyClass >>> 24);
    }

    private String type(final long lo, final long hi) {
        final String l = tables.getOrDefault(lo, "?");
        final String h = tables.getOrDefault(hi, "?");
        if (h.equals("stock")) {
            return "new-order";
        }
        if (h.equals("history") || l.equals("warehouse")) {
            return "payment";
        }
        if (l.equals("customer") || l.equals("new_order")) {
            return "delivery";
        }
        return "writes " + l + ".." + h;
    }
}
