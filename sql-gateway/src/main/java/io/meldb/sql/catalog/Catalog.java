package io.meldb.sql.catalog;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The table definitions of one committed (or in-transaction) catalog version, looked up by name or id. */
public final class Catalog {
    public static final Catalog EMPTY = new Catalog(List.of());

    private final Map<String, TableDef> byName = new TreeMap<>();
    private final Map<Integer, TableDef> byId = new HashMap<>();

    public Catalog(final Collection<TableDef> tables) {
        for (TableDef t : tables) {
            byName.put(key(t.db(), t.schema(), t.name()), t);
            byId.put(t.id(), t);
        }
    }

    public TableDef table(final String db, final String schema, final String name) {
        return byName.get(key(db, schema, name));
    }

    public TableDef tableById(final int id) {
        return byId.get(id);
    }

    /** Tables of one schema, by name. */
    public Map<String, TableDef> tables(final String db, final String schema) {
        final Map<String, TableDef> out = new TreeMap<>();
        for (TableDef t : byName.values()) {
            if (t.db().equals(db) && t.schema().equals(schema)) {
                out.put(t.name(), t);
            }
        }
        return out;
    }

    public Collection<TableDef> all() {
        return byName.values();
    }

    private static String key(final String db, final String schema, final String name) {
        return db + '\u0000' + schema + '\u0000' + name;
    }
}
