package io.meldb.sql.pg.catalog;

import io.meldb.sql.calcite.MeldTxnContext;
import io.meldb.sql.pg.catalog.PgCatalogView.Relation;
import org.apache.calcite.schema.Table;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * More of pg_catalog, for the tools that read it as they connect or reflect a schema (SQLAlchemy, Django,
 * Sequelize, psycopg's {@code TypeInfo}, pg_dump): {@code pg_constraint} ({@link PgConstraints}), {@code pg_attrdef}
 * (a column's DEFAULT; {@code adbin} holds its SQL text, which {@code pg_get_expr} answers as is),
 * {@code pg_sequence} and {@code pg_sequences} (without {@code last_value}: MeldDB's gateways reserve ranges, so the
 * last value handed out is no one place's), {@code pg_depend} (an owned sequence's dependence on its column, as
 * pg_dump and Django read it),
 * {@code pg_roles} and {@code pg_user} (the one role that owns everything, {@code postgres}, OID 10), and the
 * catalogs of things MeldDB does not have, with their columns and no rows: {@code pg_enum}, {@code pg_range},
 * {@code pg_extension}, {@code pg_inherits}, {@code pg_trigger}.
 */
final class PgObjectCatalogs {
    private static final int ATTRDEF_OIDS = 1_100_000_000;
    /** pg_class's own OID: the classid of a dependency between relations. */
    private static final int PG_CLASS_OID = 1259;

    /** A sequence relation and its definition: a row of pg_sequence and pg_sequences. */
    record Sequence(Relation relation, io.meldb.sql.catalog.SequenceDef def) {
        int typeOid() {
            return switch (def.type()) {
                case SMALLINT -> 21;
                case INTEGER -> 23;
                default -> 20;
            };
        }
    }

    /** A pg_depend row: an owned sequence's dependence on its column ('a' for SERIAL, 'i' for identity). */
    record Depend(int objid, int refobjid, int refobjsubid, String deptype) {
    }

    /** A pg_attrdef row: the default of column {@code attnum} of {@code table}. */
    record AttrDef(Relation table, int attnum, String sql) {
    }

    private PgObjectCatalogs() {
    }

    static Map<String, Table> tables(final MeldTxnContext cx) {
        final Map<String, Table> t = new LinkedHashMap<>();
        t.put("pg_constraint", SystemTable.of(cx, SystemTable.<PgConstraints.Row>columns()
                .integer("oid", PgConstraints.Row::oid)
                .text("conname", PgConstraints.Row::name)
                .integer("connamespace", c -> c.namespace().oid())
                .text("contype", c -> String.valueOf(c.contype()))
                .bool("condeferrable", PgConstraints.Row::deferrable)
                .bool("condeferred", PgConstraints.Row::deferred)
                .constant("convalidated", true)
                .integer("conrelid", PgConstraints.Row::conrelid)
                .constant("contypid", 0)
                .integer("conindid", PgConstraints.Row::conindid)
                .constant("conparentid", 0)
                .integer("confrelid", PgConstraints.Row::confrelid)
                .text("confupdtype", c -> String.valueOf(c.confupdtype()))
                .text("confdeltype", c -> String.valueOf(c.confdeltype()))
                .text("confmatchtype", c -> String.valueOf(c.confmatchtype()))
                .constant("conislocal", true)
                .constant("coninhcount", 0)
                .constant("connoinherit", false)
                .smallintArray("conkey", PgConstraints.Row::conkey)
                .smallintArray("confkey", PgConstraints.Row::confkey)
                .nullableText("conbin", c -> c.contype() == 'c' ? c.definition() : null), PgConstraints::rows));
        t.put("pg_attrdef", SystemTable.of(cx, SystemTable.<AttrDef>columns()
                .integer("oid", d -> ATTRDEF_OIDS + 1000 * d.table().table().id() + d.attnum())
                .integer("adrelid", d -> d.table().oid())
                .smallint("adnum", d -> (short) d.attnum())
                .text("adbin", AttrDef::sql), PgObjectCatalogs::defaults));
        t.put("pg_sequence", SystemTable.of(cx, SystemTable.<Sequence>columns()
                .integer("seqrelid", q -> q.relation().oid())
                .integer("seqtypid", Sequence::typeOid)
                .bigint("seqstart", q -> q.def().start())
                .bigint("seqincrement", q -> q.def().increment())
                .bigint("seqmax", q -> q.def().max())
                .bigint("seqmin", q -> q.def().min())
                .bigint("seqcache", q -> q.def().cache())
                .constant("seqcycle", false), PgObjectCatalogs::sequences));
        t.put("pg_sequences", SystemTable.of(cx, SystemTable.<Sequence>columns()
                .text("schemaname", q -> q.relation().namespace().name())
                .text("sequencename", q -> q.relation().name())
                .text("sequenceowner", q -> PgCatalogView.sessionUser(cx))
                .text("data_type", q -> PgTypeCatalog.format(q.typeOid(), null))
                .bigint("start_value", q -> q.def().start())
                .bigint("min_value", q -> q.def().min())
                .bigint("max_value", q -> q.def().max())
                .bigint("increment_by", q -> q.def().increment())
                .constant("cycle", false)
                .bigint("cache_size", q -> q.def().cache()), PgObjectCatalogs::sequences));
        t.put("pg_depend", SystemTable.of(cx, SystemTable.<Depend>columns()
                .constant("classid", PG_CLASS_OID)
                .integer("objid", Depend::objid)
                .constant("objsubid", 0)
                .constant("refclassid", PG_CLASS_OID)
                .integer("refobjid", Depend::refobjid)
                .integer("refobjsubid", Depend::refobjsubid)
                .text("deptype", Depend::deptype), PgObjectCatalogs::depends));
        t.put("pg_roles", SystemTable.of(cx, SystemTable.<String>columns()
                .text("rolname", r -> r)
                .constant("rolsuper", true)
                .constant("rolinherit", true)
                .constant("rolcreaterole", true)
                .constant("rolcreatedb", true)
                .constant("rolcanlogin", true)
                .constant("rolreplication", true)
                .constant("rolconnlimit", -1)
                .constant("rolpassword", "********")
                .nullText("rolvaliduntil")
                .constant("rolbypassrls", true)
                .nullText("rolconfig")
                .constant("oid", SystemSchemas.OWNER_OID), v -> List.of(v.user())));
        t.put("pg_user", SystemTable.of(cx, SystemTable.<String>columns()
                .text("usename", r -> r)
                .constant("usesysid", SystemSchemas.OWNER_OID)
                .constant("usecreatedb", true)
                .constant("usesuper", true)
                .constant("userepl", true)
                .constant("usebypassrls", true)
                .constant("passwd", "********")
                .nullText("valuntil")
                .nullText("useconfig"), v -> List.of(v.user())));
        t.put("pg_enum", SystemTable.empty(cx, SystemTable.columns()
                .integer("oid", r -> 0)
                .integer("enumtypid", r -> 0)
                .integer("enumsortorder", r -> 0)
                .text("enumlabel", r -> "")));
        t.put("pg_range", SystemTable.empty(cx, SystemTable.columns()
                .integer("rngtypid", r -> 0)
                .integer("rngsubtype", r -> 0)
                .integer("rngmultitypid", r -> 0)
                .integer("rngcollation", r -> 0)
                .integer("rngsubopc", r -> 0)
                .text("rngcanonical", r -> "")
                .text("rngsubdiff", r -> "")));
        t.put("pg_extension", SystemTable.empty(cx, SystemTable.columns()
                .integer("oid", r -> 0)
                .text("extname", r -> "")
                .integer("extowner", r -> 0)
                .integer("extnamespace", r -> 0)
                .bool("extrelocatable", r -> false)
                .text("extversion", r -> "")));
        t.put("pg_inherits", SystemTable.empty(cx, SystemTable.columns()
                .integer("inhrelid", r -> 0)
                .integer("inhparent", r -> 0)
                .integer("inhseqno", r -> 0)
                .bool("inhdetachpending", r -> false)));
        t.put("pg_trigger", SystemTable.empty(cx, SystemTable.columns()
                .integer("oid", r -> 0)
                .integer("tgrelid", r -> 0)
                .integer("tgparentid", r -> 0)
                .text("tgname", r -> "")
                .integer("tgfoid", r -> 0)
                .smallint("tgtype", r -> (short) 0)
                .text("tgenabled", r -> "")
                .bool("tgisinternal", r -> false)
                .integer("tgconstrrelid", r -> 0)
                .integer("tgconstrindid", r -> 0)
                .integer("tgconstraint", r -> 0)
                .bool("tgdeferrable", r -> false)
                .bool("tginitdeferred", r -> false)
                .smallint("tgnargs", r -> (short) 0)));
        return t;
    }

    private static List<Sequence> sequences(final PgCatalogView v) {
        final List<Sequence> out = new ArrayList<>();
        for (Relation r : v.sequenceRelations()) {
            out.add(new Sequence(r, v.sequence(r)));
        }
        return out;
    }

    /** The sequences SERIAL and identity columns own, each depending on its column. */
    private static List<Depend> depends(final PgCatalogView v) {
        final List<Depend> out = new ArrayList<>();
        for (Relation q : v.sequenceRelations()) {
            final io.meldb.sql.catalog.SequenceDef def = v.sequence(q);
            if (def.ownerTable() == null) {
                continue;
            }
            for (Relation t : v.relations()) {
                if (t.isTable() && t.name().equals(def.ownerTable()) && t.namespace().equals(q.namespace())) {
                    final int i = t.table().columnIndex(def.ownerColumn());
                    if (i >= 0) {
                        final boolean identity = t.table().columns().get(i).identity()
                                != io.meldb.sql.catalog.ColumnDef.Identity.NONE;
                        out.add(new Depend(q.oid(), t.oid(), i + 1, identity ? "i" : "a"));
                    }
                }
            }
        }
        return out;
    }

    /** Every column DEFAULT of every table, by table then column. */
    private static List<AttrDef> defaults(final PgCatalogView v) {
        final List<AttrDef> out = new ArrayList<>();
        for (Relation r : v.relations()) {
            if (!r.isTable()) {
                continue;
            }
            for (int i = 0; i < r.table().columns().size(); i++) {
                final String sql = PgCatalogView.columnDefault(r.table().columns().get(i));
                if (sql != null) {
                    out.add(new AttrDef(r, i + 1, sql));
                }
            }
        }
        return out;
    }
}
