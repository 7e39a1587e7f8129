package io.meldb.sql.pg.catalog;

import io.meldb.sql.catalog.CheckDef;
import io.meldb.sql.catalog.ForeignKeyDef;
import io.meldb.sql.pg.catalog.PgCatalogView.ForeignKey;
import io.meldb.sql.pg.catalog.PgCatalogView.Relation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The rows of {@code pg_constraint} as PostgreSQL 15 has them for MeldDB's constraints: a primary key ('p') or
 * UNIQUE constraint ('u') with {@code conindid} its index, a FOREIGN KEY ('f') with its referenced table, key
 * index and actions, a CHECK ('c'). NOT NULL is no constraint here, as in PostgreSQL 15. A key constraint's OID is
 * its index's (so {@code pg_get_constraintdef} answers the same for either), a foreign key's is
 * {@link PgCatalogView.ForeignKey#oid()}, a CHECK's {@code 1500000000 + 1000 * table id + its place}.
 * {@code conkey} lists the constrained columns' attnums (a CHECK's: the columns its condition names),
 * {@code confkey} a foreign key's referenced columns in the parent table.
 */
final class PgConstraints {
    private static final int CHECK_OIDS = 1_500_000_000;

    /** One pg_constraint row; {@code definition} is what pg_get_constraintdef answers. */
    record Row(int oid, String name, PgCatalogView.Namespace namespace, char contype, int conrelid, int conindid,
               int confrelid, char confupdtype, char confdeltype, char confmatchtype, String definition,
               List<Short> conkey, List<Short> confkey, ForeignKeyDef.Timing timing) {
        boolean deferrable() {
            return timing.deferrable();
        }

        boolean deferred() {
            return timing == ForeignKeyDef.Timing.INITIALLY_DEFERRED;
        }
    }

    /** Column positions (0-based) as attnums: an int2[] value. */
    private static List<Short> attnums(final int[] columns) {
        final List<Short> out = new ArrayList<>(columns.length);
        for (int c : columns) {
            out.add((short) (c + 1));
        }
        return out;
    }

    private PgConstraints() {
    }

    /** Every constraint, by schema and name. */
    static List<Row> rows(final PgCatalogView v) {
        final List<Row> out = new ArrayList<>();
        for (Relation key : SystemSchemas.keyConstraintsOf(v)) {
            out.add(new Row(key.oid(), key.name(), key.namespace(), key.contype().charAt(0),
                    v.tableOf(key).oid(), key.oid(), 0, ' ', ' ', ' ', key.constraintDef(),
                    attnums(key.keyColumns()), null, ForeignKeyDef.Timing.NOT_DEFERRABLE));
        }
        for (ForeignKey fk : v.foreignKeys()) {
            out.add(new Row(fk.oid(), fk.name(), fk.namespace(), 'f', fk.table().oid(),
                    fk.parentKey() == null ? 0 : fk.parentKey().oid(), fk.parent().oid(),
                    fk.def().onUpdate().code().charAt(0), fk.def().onDelete().code().charAt(0), 's',
                    fk.definition(), attnums(fk.def().columns()), attnums(fk.def().parentColumns()),
                    fk.def().timing()));
        }
        for (Relation r : v.relations()) {
            if (!r.isTable()) {
                continue;
            }
            final List<CheckDef> checks = r.table().checks();
            for (int k = 0; k < checks.size(); k++) {
                out.add(new Row(CHECK_OIDS + 1000 * r.table().id() + k, checks.get(k).name(), r.namespace(), 'c',
                        r.oid(), 0, 0, ' ', ' ', ' ', "CHECK " + CheckConstraintRows.clause(checks.get(k)),
                        checkColumns(r, checks.get(k)), null, ForeignKeyDef.Timing.NOT_DEFERRABLE));
            }
        }
        out.sort(Comparator.comparing((Row c) -> c.namespace().name()).thenComparing(Row::name));
        return out;
    }

    /** The attnums of the columns a CHECK condition names, in column order (PostgreSQL's conkey of a CHECK). */
    private static List<Short> checkColumns(final Relation table, final CheckDef check) {
        final java.util.Set<String> named = new java.util.HashSet<>(
                io.meldb.sql.catalog.CheckExpression.columnsOf(check.sql()));
        final List<Short> out = new ArrayList<>();
        for (int i = 0; i < table.table().columns().size(); i++) {
            if (named.contains(table.table().columns().get(i).name())) {
                out.add((short) (i + 1));
            }
        }
        return out;
    }

    /**
     * pg_get_constraintdef of a constraint OID, or null when no constraint has it; {@code pretty} drops the outer
     * parentheses PostgreSQL puts around a CHECK condition ({@code CHECK (a > 0)} rather than
     * {@code CHECK ((a > 0))}). The condition is MeldDB's text as written, not PostgreSQL's deparse of it (which
     * adds casts such as {@code 0::numeric}).
     */
    static String definition(final PgCatalogView v, final int oid, final boolean pretty) {
        for (Row r : rows(v)) {
            if (r.oid() == oid) {
                return pretty && r.contype() == 'c' ? "CHECK " + r.definition().substring("CHECK (".length(),
                        r.definition().length() - 1) : r.definition();
            }
        }
        return null;
    }
}
