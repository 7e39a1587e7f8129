package io.meldb.sql.pg.catalog;

import io.meldb.sql.catalog.ForeignKeyDef;
import io.meldb.sql.pg.PgType;
import io.meldb.sql.pg.catalog.PgCatalogView.ForeignKey;
import io.meldb.sql.pg.catalog.PgMetaQuery.Field;

import java.sql.DatabaseMetaData;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.meldb.sql.pg.catalog.PgMetaQuery.Field.constant;
import static io.meldb.sql.pg.catalog.PgMetaQuery.Field.of;

/**
 * pgjdbc 42.7's one query behind {@code DatabaseMetaData.getImportedKeys}, {@code getExportedKeys} and
 * {@code getCrossReference}: one row per column of each FOREIGN KEY whose tables pass the query's
 * {@code pkn.nspname}, {@code pkc.relname}, {@code fkn.nspname} and {@code fkc.relname} tests, sorted as the query
 * asks (by the referencing table for exported keys, by the referenced table otherwise).
 */
final class ImportedKeys {
    /** One column of one foreign key; {@code seq} is its 1-based place in the key. */
    record KeyColumn(ForeignKey fk, int seq) {
        String column() {
            return fk.table().table().columns().get(fk.def().columns()[seq - 1]).name();
        }

        String parentColumn() {
            return fk.parent().table().columns().get(fk.def().parentColumns()[seq - 1]).name();
        }
    }

    private ImportedKeys() {
    }

    static PgMetaQuery query(final String sql) {
        final String where = PgNameFilter.whereOf(sql);
        final PgNameFilter pkSchema = PgNameFilter.find(where, "pkn.nspname");
        final PgNameFilter pkTable = PgNameFilter.find(where, "pkc.relname");
        final PgNameFilter fkSchema = PgNameFilter.find(where, "fkn.nspname");
        final PgNameFilter fkTable = PgNameFilter.find(where, "fkc.relname");
        final boolean byReferencing = sql.contains("ORDER BY fkn.nspname");
        final Map<String, Field<KeyColumn>> f = new HashMap<>();
        f.put("pktable_cat", constant(PgType.NAME, PgCatalogView.DATABASE));
        f.put("pktable_schem", of(PgType.NAME, k -> k.fk().parent().namespace().name()));
        f.put("pktable_name", of(PgType.NAME, k -> k.fk().parent().name()));
        f.put("pkcolumn_name", of(PgType.NAME, KeyColumn::parentColumn));
        f.put("fktable_cat", constant(PgType.NAME, PgCatalogView.DATABASE));
        f.put("fktable_schem", of(PgType.NAME, k -> k.fk().namespace().name()));
        f.put("fktable_name", of(PgType.NAME, k -> k.fk().table().name()));
        f.put("fkcolumn_name", of(PgType.NAME, KeyColumn::column));
        f.put("key_seq", of(PgType.INT4, KeyColumn::seq));
        f.put("update_rule", of(PgType.INT4, k -> rule(k.fk().def().onUpdate())));
        f.put("delete_rule", of(PgType.INT4, k -> rule(k.fk().def().onDelete())));
        f.put("fk_name", of(PgType.NAME, k -> k.fk().name()));
        f.put("pk_name", of(PgType.NAME, k -> k.fk().parentKey() == null ? null : k.fk().parentKey().name()));
        f.put("deferrability", constant(PgType.INT4, DatabaseMetaData.importedKeyNotDeferrable));
        return PgMetaQuery.of("pgjdbc getImportedKeys", sql, PgSelectList.names(sql), f, (view, p) -> {
            final List<ForeignKey> fks = new ArrayList<>(view.foreignKeys());
            final List<ForeignKey> chosen = PgNameFilter.select(fkTable, PgNameFilter.select(fkSchema,
                    PgNameFilter.select(pkTable, PgNameFilter.select(pkSchema, fks, fk -> fk.parent().namespace()
                            .name(), p), fk -> fk.parent().name(), p), fk -> fk.namespace().name(), p),
                    fk -> fk.table().name(), p);
            final List<KeyColumn> out = new ArrayList<>();
            for (ForeignKey fk : chosen) {
                for (int i = 1; i <= fk.def().columns().length; i++) {
                    out.add(new KeyColumn(fk, i));
                }
            }
            final Comparator<KeyColumn> order = byReferencing
                    ? Comparator.comparing((KeyColumn k) -> k.fk().namespace().name())
                            .thenComparing(k -> k.fk().table().name())
                    : Comparator.comparing((KeyColumn k) -> k.fk().parent().namespace().name())
                            .thenComparing(k -> k.fk().parent().name());
            out.sort(order.thenComparing(k -> k.fk().name()).thenComparingInt(KeyColumn::seq));
            return out;
        });
    }

    /** The JDBC rule of an action ({@code importedKeyCascade}, ...), as pgjdbc's query maps pg_constraint's. */
    private static int rule(final ForeignKeyDef.Action action) {
        return switch (action) {
            case CASCADE -> DatabaseMetaData.importedKeyCascade;
            case SET_NULL -> DatabaseMetaData.importedKeySetNull;
            case SET_DEFAULT -> DatabaseMetaData.importedKeySetDefault;
            case RESTRICT -> DatabaseMetaData.importedKeyRestrict;
            case NO_ACTION -> DatabaseMetaData.importedKeyNoAction;
        };
    }
}
