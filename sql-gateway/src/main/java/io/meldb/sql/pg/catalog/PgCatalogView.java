package io.meldb.sql.pg.catalog;

import io.meldb.sql.catalog.Catalog;
import io.meldb.sql.catalog.ColumnDef;
import io.meldb.sql.catalog.ForeignKeyDef;
import io.meldb.sql.catalog.ForeignKeys;
import io.meldb.sql.catalog.IndexDef;
import io.meldb.sql.catalog.TableDef;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * MeldDB's catalog as PostgreSQL's system catalogs number and name it, for one statement: schemas are
 * namespaces ({@code pg_namespace}), tables and indexes are relations ({@code pg_class}, relkind 'r' and 'i'),
 * the primary key is an index named {@code <table>_pkey}. Names are MeldDB's as stored (unquoted identifiers
 * upper case). OIDs follow from catalog ids, so they stay the same while a table exists: a table's is
 * {@code 16384 + 2 * id}, its primary key's one more, a secondary index's {@code 16384 + 2 * index id} (tables
 * and indexes share one id sequence), a sequence's {@code 1200000000 + id} (kind 'S', in pg_class only). PUBLIC is
 * namespace 2200 as in PostgreSQL.
 */
public final class PgCatalogView {
    /** The name PostgreSQL clients see for MeldDB's one database. */
    public static final String DATABASE = "meldb";
    static final int FIRST_OID = 16384;
    private static final Pattern PLAIN_NAME = Pattern.compile("[a-z_][a-z0-9_$]*");

    /** A schema; pg_catalog and information_schema are listed too (they hold no relations here). */
    record Namespace(int oid, String name) {
    }

    /**
     * A table (kind 'r') or an index (kind 'i') of {@code table}; an index's key columns are positions in the
     * table's column list. {@code unique}: the primary key or a unique index; {@code constraint}: the primary key
     * or the index of a UNIQUE constraint.
     */
    record Relation(int oid, Namespace namespace, String name, char kind, TableDef table, boolean primary,
                    int[] keyColumns, boolean unique, boolean constraint) {
        Relation(final int oid, final Namespace namespace, final String name, final char kind, final TableDef table,
                 final boolean primary, final int[] keyColumns) {
            this(oid, namespace, name, kind, table, primary, keyColumns, primary, primary);
        }

        boolean isTable() {
            return kind == 'r';
        }

        boolean isView() {
            return kind == 'v';
        }

        /** A table or a view: a relation whose attributes are its columns. */
        boolean hasColumns() {
            return kind == 'r' || kind == 'v';
        }

        /** pg_constraint.contype of the index's constraint: 'p', 'u', or null for an index of no constraint. */
        String contype() {
            return primary ? "p" : constraint ? "u" : null;
        }

        /** pg_get_constraintdef of the index's constraint, or null. */
        String constraintDef() {
            return primary ? "PRIMARY KEY (" + keyList(this) + ")" : constraint ? "UNIQUE (" + keyList(this) + ")"
                    : null;
        }
    }

    /**
     * A FOREIGN KEY constraint (pg_constraint, contype 'f'): its table, the referenced table and the relation of
     * the referenced key (the parent's primary key or UNIQUE constraint index). Its OID is {@code 1000000000 +
     * 1000 * table id + its place among the table's constraints}.
     */
    record ForeignKey(int oid, String name, Relation table, Relation parent, ForeignKeyDef def, Relation parentKey) {
        Namespace namespace() {
            return table.namespace();
        }

        /**
         * pg_get_constraintdef: {@code FOREIGN KEY (pid) REFERENCES p(id) ON UPDATE ... ON DELETE CASCADE
         * [DEFERRABLE [INITIALLY DEFERRED]]}.
         */
        String definition() {
            final StringBuilder b = new StringBuilder("FOREIGN KEY (").append(columnList(table.table(), def.columns()))
                    .append(") REFERENCES ");
            if (!parent.namespace().equals(table.namespace())) {
                b.append(quote(parent.namespace().name())).append('.');
            }
            b.append(quote(parent.name())).append('(').append(columnList(parent.table(), def.parentColumns()))
                    .append(')');
            if (def.onUpdate() != ForeignKeyDef.Action.NO_ACTION) {
                b.append(" ON UPDATE ").append(def.onUpdate().sql());
            }
            if (def.onDelete() != ForeignKeyDef.Action.NO_ACTION) {
                b.append(" ON DELETE ").append(def.onDelete().sql());
            }
            return b.append(def.timing().sql()).toString();
        }

        private static String columnList(final TableDef t, final int[] columns) {
            final StringBuilder b = new StringBuilder();
            for (int c : columns) {
                b.append(b.length() == 0 ? "" : ", ").append(quote(t.columns().get(c).name()));
            }
            return b.toString();
        }
    }

    private static final int FOREIGN_KEY_OIDS = 1_000_000_000;
    /** A sequence's OID is this plus its catalog id. */
    private static final int SEQUENCE_OIDS = 1_200_000_000;

    private final List<ForeignKey> foreignKeys = new ArrayList<>();

    /** The FOREIGN KEY constraints, by schema, table and name. */
    List<ForeignKey> foreignKeys() {
        return Collections.unmodifiableList(foreignKeys);
    }

    /** Whether a FOREIGN KEY concerns table {@code r} (psql shows its constraints when relhastriggers is true). */
    boolean hasForeignKeys(final Relation r) {
        for (ForeignKey fk : foreignKeys) {
            if (fk.table() == r || fk.parent() == r) {
                return true;
            }
        }
        return false;
    }

    private final String user;
    private final String currentSchema;
    private final List<Namespace> namespaces = new ArrayList<>();
    private final List<Relation> relations = new ArrayList<>();
    private final Map<Integer, Relation> byOid = new HashMap<>();

    private final List<io.meldb.sql.catalog.SequenceDef> sequences = new ArrayList<>();
    /** The sequences as relations of kind 'S' (in pg_class, not in {@link #relations()}), and their definitions. */
    private final List<Relation> sequenceRelations = new ArrayList<>();
    private final Map<Integer, io.meldb.sql.catalog.SequenceDef> sequenceOf = new HashMap<>();
    private final Map<Integer, io.meldb.sql.catalog.ViewDef> views = new HashMap<>();
    private Catalog catalog;

    /** The sequences of the database, by schema and name. */
    List<io.meldb.sql.catalog.SequenceDef> sequences() {
        return sequences;
    }

    private PgCatalogView(final String user, final String currentSchema) {
        this.user = user;
        this.currentSchema = currentSchema;
    }

    /** The view of {@code catalog} for a session of {@code user} whose unqualified names resolve in a schema. */
    /**
     * The user the catalogs name as the owner of everything and as their one role: the session's user (MeldDB has
     * no roles, so the role is always the session's user), or {@link PgCatalogFunctions#OWNER} without a
     * PostgreSQL session.
     */
    static String sessionUser(final io.meldb.sql.calcite.MeldTxnContext cx) {
        try {
            return cx.sessionParameters().user();
        } catch (RuntimeException noSession) {
            return PgCatalogFunctions.OWNER;
        }
    }

    public static PgCatalogView of(final Catalog catalog, final String user, final String currentSchema) {
        final PgCatalogView v = new PgCatalogView(user, currentSchema);
        v.catalog = catalog;
        final Map<String, Namespace> byName = new HashMap<>();
        int next = 1_000_000;
        for (String name : catalog.schemaNames(Catalog.DATABASE)) {
            final Namespace n = new Namespace(name.equals(Catalog.PUBLIC) ? 2200 : next++, name);
            v.namespaces.add(n);
            byName.put(name, n);
        }
        for (io.meldb.sql.catalog.SequenceDef q : catalog.sequences()) {
            if (q.db().equals(Catalog.DATABASE)) {
                v.sequences.add(q);
            }
        }
        for (io.meldb.sql.catalog.SequenceDef q : v.sequences) {
            final Namespace n = byName.get(q.schema());
            if (n != null) {
                final Relation r = new Relation(SEQUENCE_OIDS + q.id(), n, q.name(), 'S', null, false, new int[0]);
                v.sequenceRelations.add(r);
                v.sequenceOf.put(r.oid(), q);
                v.byOid.put(r.oid(), r);
            }
        }
        v.namespaces.add(new Namespace(11, "pg_catalog"));
        v.namespaces.add(new Namespace(13_000, "information_schema"));
        for (TableDef t : catalog.all()) {
            final Namespace n = byName.get(t.schema());
            if (n == null || !t.db().equals(Catalog.DATABASE)) {
                continue;
            }
            v.add(new Relation(FIRST_OID + 2 * t.id(), n, t.name(), 'r', t, false, t.primaryKey()));
            v.add(new Relation(FIRST_OID + 2 * t.id() + 1, n, t.name() + "_pkey", 'i', t, true, t.primaryKey()));
            for (IndexDef i : t.indexes()) {
                if (i.hidden()) {
                    continue; // a foreign key's own index: PostgreSQL has none to list
                }
                v.add(new Relation(FIRST_OID + 2 * i.id(), n, i.name(), 'i', t, false, i.columns(), i.unique(),
                        i.constraint()));
            }
        }
        for (io.meldb.sql.catalog.ViewDef view : catalog.views()) {
            final Namespace n = byName.get(view.schema());
            if (n == null || !view.db().equals(Catalog.DATABASE)) {
                continue;
            }
            // a view is shown as a table of its columns (no key, no index), its oid from its id like a table's
            final List<ColumnDef> columns = new ArrayList<>();
            for (io.meldb.sql.catalog.ViewDef.Column c : view.columns()) {
                columns.add(new ColumnDef(c.name(), c.type(), c.nullable()));
            }
            v.views.put(view.id(), view);
            v.add(new Relation(FIRST_OID + 2 * view.id(), n, view.name(), 'v', new TableDef(view.db(),
                    view.schema(), view.name(), view.id(), columns, new int[0], List.of()), false, new int[0]));
        }
        v.relations.sort((a, b) -> a.namespace.name().equals(b.namespace.name()) ? a.name.compareTo(b.name)
                : a.namespace.name().compareTo(b.namespace.name()));
        for (Relation r : v.relations) {
            if (!r.isTable()) {
                continue;
            }
            final List<ForeignKeyDef> fks = r.table().foreignKeys();
            final List<ForeignKey> ofTable = new ArrayList<>();
            for (int k = 0; k < fks.size(); k++) {
                final ForeignKeyDef fk = fks.get(k);
                final Relation parent = v.byOid.get(FIRST_OID + 2 * fk.parentId());
                if (parent == null) {
                    continue;
                }
                final IndexDef key = ForeignKeys.referencedIndex(parent.table(), fk.parentColumns());
                final Relation parentKey = v.byOid.get(key == null ? parent.oid() + 1 : FIRST_OID + 2 * key.id());
                ofTable.add(new ForeignKey(FOREIGN_KEY_OIDS + 1000 * r.table().id() + k, fk.name(), r, parent, fk,
                        parentKey));
            }
            ofTable.sort((a, b) -> a.name().compareTo(b.name()));
            v.foreignKeys.addAll(ofTable);
        }
        return v;
    }

    private void add(final Relation r) {
        relations.add(r);
        byOid.put(r.oid(), r);
    }

    String user() {
        return user;
    }

    List<Namespace> namespaces() {
        return Collections.unmodifiableList(namespaces);
    }

    /** Tables, views and indexes sorted by schema and name. */
    List<Relation> relations() {
        return Collections.unmodifiableList(relations);
    }

    /** pg_class's rows: the {@link #relations()}, then the sequences (kind 'S'). */
    List<Relation> classes() {
        final List<Relation> out = new ArrayList<>(relations.size() + sequenceRelations.size());
        out.addAll(relations);
        out.addAll(sequenceRelations);
        return out;
    }

    /** The sequences as pg_class relations of kind 'S', by schema and name. */
    List<Relation> sequenceRelations() {
        return Collections.unmodifiableList(sequenceRelations);
    }

    /** The definition of a sequence relation. */
    io.meldb.sql.catalog.SequenceDef sequence(final Relation r) {
        return sequenceOf.get(r.oid());
    }

    /** pg_get_viewdef: the query of a view, or null for another relation. */
    String viewDefinition(final Relation r) {
        final io.meldb.sql.catalog.ViewDef view = r.isView() ? views.get(r.table().id()) : null;
        return view == null ? null : view.sql();
    }

    /**
     * The comment (COMMENT ON) on a table or view ({@code attnum} 0) or on its column number {@code attnum}
     * (1-based position), or null: pg_description, obj_description, col_description.
     */
    String description(final Relation r, final int attnum) {
        if (!r.hasColumns()) {
            return null;
        }
        final TableDef t = r.table();
        return catalog.comment(t.id(), attnum == 0 ? 0 : t.layout().attnum(attnum - 1));
    }

    /** The relation of an OID, or null. */
    Relation relation(final int oid) {
        return byOid.get(oid);
    }

    /** The table of a relation: itself, or the table an index belongs to. */
    Relation tableOf(final Relation r) {
        return r.isTable() ? r : byOid.get(FIRST_OID + 2 * r.table().id());
    }

    /** The indexes of a table: its primary key first, then the others by name. */
    List<Relation> indexesOf(final Relation table) {
        final List<Relation> out = new ArrayList<>();
        for (Relation r : relations) {
            if (r.kind() == 'i' && r.table().id() == table.table().id()) {
                out.add(r);
            }
        }
        out.sort((a, b) -> a.primary() != b.primary() ? (a.primary() ? -1 : 1) : a.name().compareTo(b.name()));
        return out;
    }

    /** {@code pg_table_is_visible}: whether unqualified names find the relation (its schema is the current). */
    boolean visible(final Relation r) {
        return r.namespace().name().equals(currentSchema);
    }

    /** {@code pg_get_indexdef(oid)}: {@code CREATE [UNIQUE] INDEX name ON schema.table USING btree (columns)}. */
    static String indexDef(final Relation index) {
        return "CREATE " + (index.unique() ? "UNIQUE " : "") + "INDEX " + quote(index.name()) + " ON "
                + quote(index.namespace().name()) + "." + quote(index.table().name()) + " USING btree ("
                + keyList(index) + ")";
    }

    /** The key columns of an index, comma-separated and quoted where MeldDB's SQL needs it. */
    static String keyList(final Relation index) {
        final StringBuilder b = new StringBuilder();
        for (int k : index.keyColumns()) {
            b.append(b.length() == 0 ? "" : ", ").append(quote(index.table().columns().get(k).name()));
        }
        return b.toString();
    }

    /** A name as MeldDB's SQL reads it back: plain lower-case names bare, others in double quotes. */
    static String quote(final String name) {
        return PLAIN_NAME.matcher(name).matches() ? name : '"' + name.replace("\"", "\"\"") + '"';
    }

    /**
     * A column's DEFAULT as PostgreSQL shows it ({@code nextval('t_id_seq'::regclass)}, {@code 5}), or null: an
     * identity column has none (its sequence is no default in PostgreSQL: {@code atthasdef} is false), and a
     * sequence in the search path ({@code public}) is named without its schema, as regclass's output names it.
     */
    static String columnDefault(final ColumnDef c) {
        final io.meldb.sql.catalog.ColumnDefault d = c.dflt();
        if (d == null || c.identity() != ColumnDef.Identity.NONE) {
            return null;
        }
        if (d.kind() == io.meldb.sql.catalog.ColumnDefault.Kind.NEXTVAL && Catalog.PUBLIC.equals(d.sequenceSchema())
                && d.sequence() != null) {
            return "nextval('" + quote(d.sequence()).replace("'", "''") + "'::regclass)";
        }
        return d.sql();
    }

    /** pg_attribute.attidentity: 'a' (ALWAYS), 'd' (BY DEFAULT) or '' for a column that is no identity. */
    static String attidentity(final ColumnDef c) {
        return switch (c.identity()) {
            case ALWAYS -> "a";
            case BY_DEFAULT -> "d";
            default -> "";
        };
    }

    /** Whether column {@code i} of a table is NOT NULL (primary key columns always are). */
    static boolean notNull(final TableDef t, final int i) {
        final ColumnDef c = t.columns().get(i);
        if (!c.nullable()) {
            return true;
        }
        for (int k : t.primaryKey()) {
            if (k == i) {
                return true;
            }
        }
        return false;
    }
}
