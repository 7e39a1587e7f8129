package io.meldb.sql.pg.catalog;

import io.meldb.sql.calcite.MeldTxnContext;
import org.apache.calcite.schema.Table;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * pg_catalog tables of things MeldDB does not have, present with their columns and no rows so that the catalog
 * queries of tools still run: {@code pg_proc} (no user-defined functions or procedures), {@code pg_matviews} (no
 * materialized views: TypeORM reads it to synchronize), {@code pg_policy} (no row security), {@code
 * pg_statistic_ext} (no extended statistics), {@code pg_publication}, {@code pg_publication_namespace} and
 * {@code pg_publication_rel} (no logical replication), {@code pg_auth_members} (no role membership),
 * {@code pg_rewrite} (no rules): psql's describe commands read them all.
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
        t.put("pg_policy", SystemTable.empty(cx, SystemTable.columns()
                .integer("oid", r -> 0)
                .text("polname", r -> "")
                .integer("polrelid", r -> 0)
                .text("polcmd", r -> "")
                .constant("polpermissive", true)
                .nullText("polqual")
                .nullText("polwithcheck")));
        t.put("pg_statistic_ext", SystemTable.empty(cx, SystemTable.columns()
                .integer("oid", r -> 0)
                .integer("stxrelid", r -> 0)
                .text("stxname", r -> "")
                .integer("stxnamespace", r -> 0)
                .integer("stxowner", r -> 0)
                .integer("stxstattarget", r -> 0)
                .smallintArray("stxkeys", r -> java.util.List.of())));
        t.put("pg_publication", SystemTable.empty(cx, SystemTable.columns()
                .integer("oid", r -> 0)
                .text("pubname", r -> "")
                .integer("pubowner", r -> 0)
                .constant("puballtables", false)
                .constant("pubinsert", false)
                .constant("pubupdate", false)
                .constant("pubdelete", false)
                .constant("pubtruncate", false)
                .constant("pubviaroot", false)));
        t.put("pg_publication_namespace", SystemTable.empty(cx, SystemTable.columns()
                .integer("oid", r -> 0)
                .integer("pnpubid", r -> 0)
                .integer("pnnspid", r -> 0)));
        t.put("pg_publication_rel", SystemTable.empty(cx, SystemTable.columns()
                .integer("oid", r -> 0)
                .integer("prpubid", r -> 0)
                .integer("prrelid", r -> 0)
                .nullText("prqual")
                .smallintArray("prattrs", r -> java.util.List.of())));
        t.put("pg_auth_members", SystemTable.empty(cx, SystemTable.columns()
                .integer("roleid", r -> 0)
                .integer("member", r -> 0)
                .integer("grantor", r -> 0)
                .constant("admin_option", false)));
        t.put("pg_rewrite", SystemTable.empty(cx, SystemTable.columns()
                .integer("oid", r -> 0)
                .text("rulename", r -> "")
                .integer("ev_class", r -> 0)
                .text("ev_type", r -> "")
                .text("ev_enabled", r -> "")
                .constant("is_instead", false)));
        return t;
    }
}
