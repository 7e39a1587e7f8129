package io.meldb.sql.catalog;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The databases, schemas and table definitions of one committed (or in-transaction) catalog version, looked up
 * by name or id. MeldDB serves one database per cluster ({@link #DATABASE}); its schema {@link #PUBLIC} always
 * exists (the bootstrap transaction and every DDL transaction create both if missing), and unqualified names
 * resolve in it.
 */
public final class Catalog {
    /** The one database of a MeldDB cluster. */
    public static final String DATABASE = "meldb";
    /** The schema that always exists and that unqualified names resolve in. */
    public static final String PUBLIC = "public";

    public static final Catalog EMPTY = new Catalog(List.of(), List.of(), List.of());

    private final NavigableSet<String> databases = new TreeSet<>();
    private final NavigableSet<SchemaDef> schemas = new TreeSet<>(
            (a, b) -> a.db().equals(b.db()) ? a.name().compareTo(b.name()) : a.db().compareTo(b.db()));
    private final Map<String, TableDef> byName = new TreeMap<>();
    private final Map<Integer, TableDef> byId = new HashMap<>();

    private final Map<String, SequenceDef> sequences = new TreeMap<>();
    /** Built on first use: most statements run against a catalog version many statements share. */
    private volatile ForeignKeys foreignKeys;
    private final Map<String, ViewDef> views = new TreeMap<>();
    /** Comments by (relation id, attnum). */
    private final Map<Long, String> comments = new TreeMap<>();

    public Catalog(final Collection<String> databases, final Collection<SchemaDef> schemas,
                   final Collection<TableDef> tables) {
        this(databases, schemas, tables, List.of());
    }

    public Catalog(final Collection<String> databases, final Collection<SchemaDef> schemas,
                   final Collection<TableDef> tables, final Collection<SequenceDef> sequenceDefs) {
        this(databases, schemas, tables, sequenceDefs, List.of(), Map.of());
    }

    /** A catalog with views and comments (keyed by {@link #commentKey}). */
    public Catalog(final Collection<String> databases, final Collection<SchemaDef> schemas,
                   final Collection<TableDef> tables, final Collection<SequenceDef> sequenceDefs,
                   final Collection<ViewDef> viewDefs, final Map<Long, String> commentTexts) {
        for (ViewDef v : viewDefs) {
            views.put(key(v.db(), v.schema(), v.name()), v);
        }
        comments.putAll(commentTexts);
        for (SequenceDef q : sequenceDefs) {
            sequences.put(key(q.db(), q.schema(), q.name()), q);
        }
        this.databases.addAll(databases);
        this.schemas.addAll(schemas);
        for (TableDef t : tables) {
            byName.put(key(t.db(), t.schema(), t.name()), t);
            byId.put(t.id(), t);
        }
    }

    /** Whether the database entry of {@code db} exists. */
    public boolean hasDatabase(final String db) {
        return databases.contains(db);
    }

    /** Whether the schema entry exists. */
    public boolean hasSchema(final String db, final String schema) {
        return schemas.contains(new SchemaDef(db, schema));
    }

    /**
     * Names of the schemas of {@code db}, sorted; {@link #PUBLIC} of {@link #DATABASE} is among them even before
     * the bootstrap transaction that writes its entry is visible.
     */
    public NavigableSet<String> schemaNames(final String db) {
        final NavigableSet<String> out = new TreeSet<>();
        for (SchemaDef s : schemas) {
            if (s.db().equals(db)) {
                out.add(s.name());
            }
        }
        if (db.equals(DATABASE)) {
            out.add(PUBLIC);
        }
        return out;
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

    /** The sequence of that name, or null. */
    public SequenceDef sequence(final String db, final String schema, final String name) {
        return sequences.get(key(db, schema, name));
    }

    /** Every sequence, by (db, schema, name). */
    public Collection<SequenceDef> sequences() {
        return sequences.values();
    }

    /** The FOREIGN KEY constraints of this version, indexed by parent, and the stores that enforce them. */
    public ForeignKeys foreignKeys() {
        ForeignKeys f = foreignKeys;
        if (f == null) {
            f = new ForeignKeys(this);
            foreignKeys = f;
        }
        return f;
    }

    /** The view of that name, or null. */
    public ViewDef view(final String db, final String schema, final String name) {
        return views.get(key(db, schema, name));
    }

    /** Views of one schema, by name. */
    public Map<String, ViewDef> views(final String db, final String schema) {
        final Map<String, ViewDef> out = new TreeMap<>();
        for (ViewDef v : views.values()) {
            if (v.db().equals(db) && v.schema().equals(schema)) {
                out.put(v.name(), v);
            }
        }
        return out;
    }

    /** Every view, by (db, schema, name). */
    public Collection<ViewDef> views() {
        return views.values();
    }

    /** The views that read the table or view {@code relationId}. */
    public List<ViewDef> viewsUsing(final int relationId) {
        final List<ViewDef> out = new java.util.ArrayList<>();
        for (ViewDef v : views.values()) {
            if (v.dependsOn(relationId)) {
                out.add(v);
            }
        }
        return out;
    }

    /** The comment on column {@code attnum} of relation {@code id} (0: on the relation), or null. */
    public String comment(final int id, final int attnum) {
        return comments.get(commentKey(id, attnum));
    }

    public static long commentKey(final int id, final int attnum) {
        return ((long) id << 32) | (attnum & 0xFFFFFFFFL);
    }

    public Collection<TableDef> all() {
        return byName.values();
    }

    private static String key(final String db, final String schema, final String name) {
        return db + '\u0000' + schema + '\u0000' + name;
    }
}
