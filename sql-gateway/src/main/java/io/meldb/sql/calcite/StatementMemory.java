package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;

import java.math.BigDecimal;

/**
 * The memory budget of one statement: what its sorts, join buffers (the built side of a hash join, the inner
 * side of a RIGHT or FULL nested-loop join) and set operations keep is estimated row by row ({@link MeldBudget} charges it),
 * and the statement fails with 53200 (out_of_memory) when the estimate passes the limit, long before the JVM's
 * heap runs out under the txn-server and every other statement of the process. Aggregates' group state and
 * rows streamed to the client are not counted. One statement at a time; not thread-safe.
 */
public final class StatementMemory {
    /** The default budget: a quarter of the heap, at most 1 GiB. */
    public static final long DEFAULT_LIMIT = defaultLimit();

    private long limit = DEFAULT_LIMIT;
    private long used;

    private static long defaultLimit() {
        final String configured = System.getProperty("meldb.statement_memory");
        if (configured != null) {
            return parse(configured);
        }
        return Math.min(Runtime.getRuntime().maxMemory() / 4, 1L << 30);
    }

    /** The limit in bytes (0: none). */
    public long limit() {
        return limit;
    }

    public void limit(final long bytes) {
        limit = bytes;
    }

    /** A new statement starts with nothing charged. */
    public void reset() {
        used = 0;
    }

    /** Charges one row that an operator keeps and answers its estimate; 53200 when the budget is spent. */
    public long charge(final Object row) {
        final long bytes = rowBytes(row);
        used += bytes;
        if (limit > 0 && used > limit) {
            final long over = used;
            used = 0;
            throw new SqlStateException("53200", "out of memory: this statement's sorts, joins and set operations "
                    + "need more than its memory budget of " + limit / (1024 * 1024) + " MB (estimated "
                    + over / (1024 * 1024) + " MB so far); raise meldb.statement_memory or make the query "
                    + "keep fewer rows");
        }
        return bytes;
    }

    /** Gives back what rows no longer kept were charged (a recursive union's working table of an earlier step). */
    public void release(final long bytes) {
        used = Math.max(0, used - bytes);
    }

    /** An estimate of the heap a kept row takes, with the hash or list entry that holds it. */
    public static long rowBytes(final Object row) {
        if (row instanceof Object[] values) {
            long bytes = 48 + 16 + 8L * values.length;
            for (Object v : values) {
                bytes += valueBytes(v);
            }
            return bytes;
        }
        return 48 + valueBytes(row);
    }

    private static long valueBytes(final Object v) {
        if (v == null || v instanceof Boolean) {
            return 0;
        }
        if (v instanceof String s) {
            return 40 + 2L * s.length();
        }
        if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return 16;
        }
        if (v instanceof Long || v instanceof Double) {
            return 24;
        }
        if (v instanceof BigDecimal d) {
            return 64 + d.precision() / 2;
        }
        if (v instanceof byte[] b) {
            return 16 + b.length;
        }
        return 32;
    }

    /** A size: "0" (no limit), "65536" (bytes), "64kB", "64MB", "2GB" (PostgreSQL's memory units). */
    public static long parse(final String value) {
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\s*(\\d+)\\s*(B|kB|MB|GB|TB)?\\s*",
                java.util.regex.Pattern.CASE_INSENSITIVE).matcher(value);
        if (!m.matches()) {
            throw new SqlStateException("22023", "invalid memory size \"" + value + "\" (e.g. 64MB, 1GB, 0 for no "
                    + "limit)");
        }
        final long n = Long.parseLong(m.group(1));
        final String unit = m.group(2) == null ? "B" : m.group(2).toUpperCase(java.util.Locale.ROOT);
        return switch (unit) {
            case "KB" -> n << 10;
            case "MB" -> n << 20;
            case "GB" -> n << 30;
            case "TB" -> n << 40;
            default -> n;
        };
    }
}
