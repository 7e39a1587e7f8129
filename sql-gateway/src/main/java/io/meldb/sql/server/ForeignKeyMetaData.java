package io.meldb.sql.server;

import io.meldb.sql.catalog.ForeignKeyDef;
import io.meldb.sql.catalog.IndexDef;
import io.meldb.sql.catalog.TableDef;

import java.sql.DatabaseMetaData;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

import static io.meldb.sql.server.MetaResults.small;
import static io.meldb.sql.server.MetaResults.text;

/**
 * The rows of {@code DatabaseMetaData.getImportedKeys} and {@code getExportedKeys} from the FOREIGN KEY
 * constraints in the catalog: one row per column of each key, with the referenced table's key (its primary key
 * or the UNIQUE constraint the key references) as PK_NAME and the ON UPDATE / ON DELETE actions as JDBC's rules.
 */
final class ForeignKeyMetaData {
    static final MetaResults KEYS = new MetaResults(text("PKTABLE_CAT"), text("PKTABLE_SCHEM"),
            text("PKTABLE_NAME"), text("PKCOLUMN_NAME"), text("FKTABLE_CAT"), text("FKTABLE_SCHEM"),
            text("FKTABLE_NAME"), text("FKCOLUMN_NAME"), small("KEY_SEQ"), small("UPDATE_RULE"),
            small("DELETE_RULE"), text("FK_NAME"), text("PK_NAME"), small("DEFERRABILITY"));

    private ForeignKeyMetaData() {
    }

    /** The keys of {@code table} (the referencing side), ordered by the referenced table and KEY_SEQ. */
    static List<Object[]> imported(final CatalogMetaData m, final String catalog, final String schema,
                                   final String table) {
        final List<Object[]> rows = new ArrayList<>();
        for (TableDef child : m.userTables(catalog, schema, table)) {
            for (ForeignKeyDef fk : child.foreignKeys()) {
                final TableDef parent = m.catalog.tableById(fk.parentId());
                if (parent != null) {
                    add(parent, child, fk, rows);
                }
            }
        }
        // JDBC's order, then by key name where one table references another twice
        rows.sort(Comparator.comparing((Object[] r) -> (String) r[1]).thenComparing(r -> (String) r[2])
                .thenComparing(r -> (String) r[11]).thenComparing(r -> (Short) r[8]));
        return rows;
    }

    /** The keys that reference {@code table}, ordered by the referencing table and KEY_SEQ. */
    static List<Object[]> exported(final CatalogMetaData m, final String catalog, final String schema,
                                   final String table) {
        final List<Object[]> rows = new ArrayList<>();
        for (TableDef parent : m.userTables(catalog, schema, table)) {
            for (TableDef child : m.catalog.all()) {
                for (ForeignKeyDef fk : child.foreignKeys()) {
                    if (fk.parentId() == parent.id()) {
                        add(parent, child, fk, rows);
                    }
                }
            }
        }
        rows.sort(Comparator.comparing((Object[] r) -> (String) r[5]).thenComparing(r -> (String) r[6])
                .thenComparing(r -> (String) r[11]).thenComparing(r -> (Short) r[8]));
        return rows;
    }

    private static void add(final TableDef parent, final TableDef child, final ForeignKeyDef fk,
                            final List<Object[]> rows) {
        final String parentKey = parentKeyName(parent, fk.parentColumns());
        for (int k = 0; k < fk.columns().length; k++) {
            rows.add(new Object[] {CatalogMetaData.DB, parent.schema(), parent.name(),
                    parent.columns().get(fk.parentColumns()[k]).name(), CatalogMetaData.DB, child.schema(),
                    child.name(), child.columns().get(fk.columns()[k]).name(), (short) (k + 1),
                    rule(fk.onUpdate()), rule(fk.onDelete()), fk.name(), parentKey,
                    (short) DatabaseMetaData.importedKeyNotDeferrable});
        }
    }

    /** The name of the parent's key over exactly {@code columns} (any order), or null. */
    private static String parentKeyName(final TableDef parent, final int[] columns) {
        final int[] wanted = columns.clone();
        Arrays.sort(wanted);
        final int[] pk = parent.primaryKey().clone();
        Arrays.sort(pk);
        if (Arrays.equals(pk, wanted)) {
            return parent.name() + "_pkey";
        }
        for (IndexDef i : parent.indexes()) {
            final int[] cols = i.columns().clone();
            Arrays.sort(cols);
            if (i.unique() && Arrays.equals(cols, wanted)) {
                return i.name();
            }
        }
        return null;
    }

    private static short rule(final ForeignKeyDef.Action action) {
        return (short) switch (action) {
            case CASCADE -> DatabaseMetaData.importedKeyCascade;
            case RESTRICT -> DatabaseMetaData.importedKeyRestrict;
            case SET_NULL -> DatabaseMetaData.importedKeySetNull;
            case SET_DEFAULT -> DatabaseMetaData.importedKeySetDefault;
            case NO_ACTION -> DatabaseMetaData.importedKeyNoAction;
        };
    }
}
