package io.meldb.sql.server;

import java.util.List;

/** A result of one text column whose rows the gateway computed itself (EXPLAIN ANALYZE's plan lines). */
final class TextRows implements RowCursor {
    private final List<String> lines;
    private int next;

    TextRows(final List<String> lines) {
        this.lines = lines;
    }

    @Override
    public boolean next() {
        if (next >= lines.size()) {
            return false;
        }
        next++;
        return true;
    }

    @Override
    public Object value(final int column) {
        return lines.get(next - 1);
    }

    @Override
    public void close() {
    }
}
