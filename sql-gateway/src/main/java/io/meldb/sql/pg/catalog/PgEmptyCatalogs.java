package io.meldb.sql.pg.catalog;

import io.meldb.sql.calcite.MeldTxnContext;
import org.apache.calcite.schema.Table;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * pg_catalog tables of things MeldDB does not have, present with their columns and no rows so that the catalog
 * queries of tools still run: {@code pg_proc} (no user-defined functions or procedures), {@code pg_matviews} (no
 * materialized views: TypeORM reads it to synchronize).
 */
final class PgEmptyCatalogs {
    private PgEmptyCatalogs() {
    }

    static Map<String, Table> tables(final MeldTxnContext cx) {
        final Map<String, Table> t = new LinkedHashMap<>();
        t.put("pg_proc", SystemTable.empty(cx, SystemTable.columns()
                .integer("oid", r -> 0)
                .text("proname", r -> "")
                .integer("pronamespace", r -> 0)
                .integer("proowner", r -> 0)
                .integer("prolang", r -> 0)
                .text("prokind", r -> "")
                .integer("prorettype", r -> 0)
                .smallint("pronargs", r -> (short) 0)
                .text("proargtypes", r -> "")));
        t.put("pg_matviews", SystemTable.empty(cx, SystemTable.columns()
                .text("schemaname", r -> "")
                .text("matviewname", r -> "")
                .text("matviewowner", r -> "")
                .nullText("tablespace")
                .constant("hasindexes", false)
                .constant("ispopulated", false)
                .text("definition", r -> "")));
        return t;
    }
}
