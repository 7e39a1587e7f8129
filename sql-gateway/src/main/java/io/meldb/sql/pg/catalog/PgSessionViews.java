package io.meldb.sql.pg.catalog;

import io.meldb.sql.calcite.MeldTxnContext;
import io.meldb.sql.calcite.OpenCursors.Cursor;
import org.apache.calcite.schema.Table;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * pg_catalog's views of the session itself: {@code pg_cursors}, the SQL cursors the session has open (DECLARE),
 * with PostgreSQL's columns (name, statement, is_holdable, is_binary, is_scrollable, creation_time), from the
 * connection's {@link MeldTxnContext#openCursors}.
 */
final class PgSessionViews {
    private PgSessionViews() {
    }

    static Map<String, Table> tables(final MeldTxnContext cx) {
        final Map<String, Table> t = new LinkedHashMap<>();
        t.put("pg_cursors", SystemTable.of(cx, SystemTable.<Cursor>columns()
                .text("name", Cursor::name)
                .text("statement", Cursor::statement)
                .bool("is_holdable", Cursor::holdable)
                .bool("is_binary", Cursor::binary)
                .bool("is_scrollable", Cursor::scrollable)
                .timestamptz("creation_time", c -> c.creationTime().toInstant().toEpochMilli()),
                v -> cx.openCursors().list()));
        return t;
    }
}
