package io.meldb.sql.pg.catalog;

import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.pg.catalog.PgCatalogView.ForeignKey;
import io.meldb.sql.pg.catalog.PgCatalogView.Namespace;
import io.meldb.sql.pg.catalog.PgCatalogView.Relation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The rows of information_schema's constraint views ({@code table_constraints}, {@code key_column_usage}) for
 * {@link SystemSchemas}: the key constraints (primary keys and UNIQUE constraints, by their indexes), the
 * FOREIGN KEY constraints and (in table_constraints) the CHECK and NOT NULL ones ({@link CheckConstraintRows}),
 * by schema and name, as PostgreSQL lists them.
 */
final class ConstraintRows {
    /** One constraint: {@code nullsDistinct} is "YES" for a UNIQUE constraint, null for the others. */
    record Constraint(Namespace namespace, String name, TableDef table, String type, String nullsDistinct,
                      io.meldb.sql.catalog.ForeignKeyDef.Timing timing) {
        Constraint(final Namespace namespace, final String name, final TableDef table, final String type,
                   final String nullsDistinct) {
            this(namespace, name, table, type, nullsDistinct, io.meldb.sql.catalog.ForeignKeyDef.Timing.NOT_DEFERRABLE);
        }

        /** information_schema's is_deferrable. */
        String isDeferrable() {
            return timing.deferrable() ? "YES" : "NO";
        }

        /** information_schema's initially_deferred. */
        String initiallyDeferred() {
            return timing == io.meldb.sql.catalog.ForeignKeyDef.Timing.INITIALLY_DEFERRED ? "YES" : "NO";
        }
    }

    /**
     * One column of a constraint: its 1-based place in the constraint, and for a foreign key the place of the
     * column it references in the referenced key ({@code position_in_unique_constraint}), else null.
     */
    record KeyColumn(Namespace namespace, String constraint, TableDef table, int position, int ordinal,
                     Integer uniquePosition) {
        String column() {
            return table.columns().get(position).name();
        }
    }

    private ConstraintRows() {
    }

    static List<Constraint> constraints(final PgCatalogView v, final List<Relation> keys) {
        final List<Constraint> out = new ArrayList<>();
        for (Relation r : keys) {
            out.add(new Constraint(r.namespace(), r.name(), r.table(), r.primary() ? "PRIMARY KEY" : "UNIQUE",
                    r.primary() ? null : "YES"));
        }
        for (ForeignKey fk : v.foreignKeys()) {
            out.add(new Constraint(fk.namespace(), fk.name(), fk.table().table(), "FOREIGN KEY", null,
                    fk.def().timing()));
        }
        for (CheckConstraintRows.Check c : CheckConstraintRows.checks(v)) {
            out.add(new Constraint(c.namespace(), c.name(), c.table().table(), "CHECK", null));
        }
        out.sort(Comparator.comparing((Constraint c) -> c.namespace().name()).thenComparing(Constraint::name));
        return out;
    }

    static List<KeyColumn> keyColumns(final PgCatalogView v, final List<Relation> keys) {
        final List<KeyColumn> out = new ArrayList<>();
        for (Relation r : keys) {
            for (int k = 0; k < r.keyColumns().length; k++) {
                out.add(new KeyColumn(r.namespace(), r.name(), r.table(), r.keyColumns()[k], k + 1, null));
            }
        }
        for (ForeignKey fk : v.foreignKeys()) {
            final int[] columns = fk.def().columns();
            for (int k = 0; k < columns.length; k++) {
                out.add(new KeyColumn(fk.namespace(), fk.name(), fk.table().table(), columns[k], k + 1,
                        uniquePosition(fk, fk.def().parentColumns()[k])));
            }
        }
        out.sort(Comparator.comparing((KeyColumn c) -> c.namespace().name()).thenComparing(KeyColumn::constraint)
                .thenComparingInt(KeyColumn::ordinal));
        return out;
    }

    private static Integer uniquePosition(final ForeignKey fk, final int parentColumn) {
        if (fk.parentKey() == null) {
            return null;
        }
        final int[] key = fk.parentKey().keyColumns();
        for (int i = 0; i < key.length; i++) {
            if (key[i] == parentColumn) {
                return i + 1;
            }
        }
        return null;
    }
}
