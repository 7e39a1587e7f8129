package io.meldb.sql.pg.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.calcite.ContextFunction;
import io.meldb.sql.calcite.MeldRootSchema;
import io.meldb.sql.catalog.Catalog;
import io.meldb.sql.catalog.SequenceDef;
import org.apache.calcite.DataContext;
import org.apache.calcite.schema.Function;
import org.apache.calcite.sql.type.SqlTypeName;


/**
 * PostgreSQL's system information functions over MeldDB's catalog, as functions any statement can call (the
 * catalog queries of psql, pgjdbc, SQLAlchemy, Django, pg_dump): {@code pg_table_is_visible},
 * {@code pg_type_is_visible}, {@code format_type}, {@code pg_get_constraintdef}, {@code pg_get_indexdef},
 * {@code pg_get_viewdef}, {@code pg_get_expr}, {@code pg_get_userbyid}, {@code obj_description},
 * {@code col_description}, {@code shobj_description}, {@code pg_get_serial_sequence}, {@code pg_is_in_recovery},
 * {@code pg_encoding_to_char}. Each reads the catalog as the statement's transaction sees it, through the
 * {@link PgCatalogView} that numbers it as the system tables do ({@link SystemSchemas}), so an OID read from
 * {@code pg_class} or {@code pg_constraint} means the same object here. As in PostgreSQL, an OID that names
 * nothing answers NULL.
 *
 * <p>{@code pg_get_expr(adbin, relid)} answers its first argument: MeldDB's {@code pg_attrdef.adbin} and
 * {@code pg_index.indpred} hold the expression's SQL text, which is what {@code pg_get_expr} makes of
 * PostgreSQL's node trees.
 */
public final class PgCatalogFunctions {
    /** The owner of every object: PostgreSQL's bootstrap superuser, OID 10. */
    static final String OWNER = "postgres";

    private PgCatalogFunctions() {
    }

    /** The functions by the name unquoted calls reach the schema with (upper case: {@code FunctionNames}). */
    public static com.google.common.collect.Multimap<String, Function> functions() {
        final com.google.common.collect.Multimap<String, Function> f =
                com.google.common.collect.LinkedListMultimap.create();
        final SqlTypeName oid = SqlTypeName.INTEGER;
        final SqlTypeName text = SqlTypeName.VARCHAR;
        f.put("PG_TABLE_IS_VISIBLE", ContextFunction.of(PgCatalogFunctions.class, "tableIsVisible", oid));
        f.put("PG_TYPE_IS_VISIBLE", ContextFunction.of(PgCatalogFunctions.class, "typeIsVisible", oid));
        f.put("FORMAT_TYPE", ContextFunction.of(PgCatalogFunctions.class, "formatType", oid, SqlTypeName.INTEGER));
        f.put("PG_GET_CONSTRAINTDEF", ContextFunction.of(PgCatalogFunctions.class, "constraintDef", oid));
        f.put("PG_GET_CONSTRAINTDEF", ContextFunction.of(PgCatalogFunctions.class, "constraintDefPretty", oid,
                SqlTypeName.BOOLEAN));
        f.put("PG_GET_INDEXDEF", ContextFunction.of(PgCatalogFunctions.class, "indexDef", oid));
        f.put("PG_GET_INDEXDEF", ContextFunction.of(PgCatalogFunctions.class, "indexColumnDef", oid,
                SqlTypeName.INTEGER, SqlTypeName.BOOLEAN));
        f.put("PG_GET_VIEWDEF", ContextFunction.of(PgCatalogFunctions.class, "viewDef", oid));
        f.put("PG_GET_VIEWDEF", ContextFunction.of(PgCatalogFunctions.class, "viewDefPretty", oid,
                SqlTypeName.BOOLEAN));
        f.put("PG_GET_EXPR", ContextFunction.of(PgCatalogFunctions.class, "expr", text, oid));
        f.put("PG_GET_EXPR", ContextFunction.of(PgCatalogFunctions.class, "exprPretty", text, oid,
                SqlTypeName.BOOLEAN));
        f.put("PG_FUNCTION_IS_VISIBLE", ContextFunction.of(PgCatalogFunctions.class, "functionIsVisible", oid));
        for (String name : java.util.List.of("PG_TABLE_SIZE", "PG_RELATION_SIZE", "PG_TOTAL_RELATION_SIZE",
                "PG_INDEXES_SIZE")) {
            f.put(name, ContextFunction.of(PgCatalogFunctions.class, "relationSize", oid));
        }
        f.put("PG_SIZE_PRETTY", ContextFunction.of(PgCatalogFunctions.class, "sizePretty", SqlTypeName.BIGINT));
        for (String name : java.util.List.of("PG_GET_FUNCTION_RESULT", "PG_GET_FUNCTION_ARGUMENTS",
                "PG_GET_FUNCTION_IDENTITY_ARGUMENTS", "PG_GET_FUNCTIONDEF")) {
            f.put(name, ContextFunction.of(PgCatalogFunctions.class, "functionText", oid));
        }
        f.put("PG_GET_USERBYID", ContextFunction.of(PgCatalogFunctions.class, "userById", oid));
        f.put("OBJ_DESCRIPTION", ContextFunction.of(PgCatalogFunctions.class, "objDescription", oid, text));
        f.put("COL_DESCRIPTION", ContextFunction.of(PgCatalogFunctions.class, "colDescription", oid,
                SqlTypeName.INTEGER));
        f.put("SHOBJ_DESCRIPTION", ContextFunction.of(PgCatalogFunctions.class, "shobjDescription", oid, text));
        f.put("PG_GET_SERIAL_SEQUENCE", ContextFunction.of(PgCatalogFunctions.class, "serialSequence", text, text));
        f.put("REGCLASS_OF_OID", ContextFunction.of(PgCatalogFunctions.class, "regclassOfOid", oid));
        f.put("REGCLASS_OF_NAME", ContextFunction.of(PgCatalogFunctions.class, "regclassOfName", text));
        f.put("OID_OF_REGCLASS", ContextFunction.of(PgCatalogFunctions.class, "oidOfRegclass", text));
        f.put("REGTYPE_OF_OID", ContextFunction.of(PgCatalogFunctions.class, "regtypeOfOid", oid));
        f.put("REGTYPE_OF_NAME", ContextFunction.of(PgCatalogFunctions.class, "regtypeOfName", text));
        f.put("OID_OF_REGTYPE", ContextFunction.of(PgCatalogFunctions.class, "oidOfRegtype", text));
        f.put("REGPROC_OF_NAME", ContextFunction.of(PgCatalogFunctions.class, "regprocOfName", text));
        f.put("REGNAMESPACE_OF_OID", ContextFunction.of(PgCatalogFunctions.class, "regnamespaceOfOid", oid));
        f.put("REGNAMESPACE_OF_NAME", ContextFunction.of(PgCatalogFunctions.class, "regnamespaceOfName", text));
        f.put("OID_OF_REGNAMESPACE", ContextFunction.of(PgCatalogFunctions.class, "oidOfRegnamespace", text));
        f.put("PG_IS_IN_RECOVERY", ContextFunction.of(PgCatalogFunctions.class, "isInRecovery"));
        f.put("PG_ENCODING_TO_CHAR", ContextFunction.of(PgCatalogFunctions.class, "encodingToChar",
                SqlTypeName.INTEGER));
        return f;
    }

    // ------------------------------------------------------------------ what generated code calls

    public static Boolean tableIsVisible(final DataContext root, final Object oid) {
        final PgCatalogView.Relation r = relation(root, oid);
        return r == null ? null : view(root).visible(r);
    }

    public static Boolean typeIsVisible(final DataContext root, final Object oid) {
        // every type is in pg_catalog, which is always searched
        return oid == null || PgTypeCatalog.ofOid(toInt(oid)) == null ? null : Boolean.TRUE;
    }

    public static String formatType(final DataContext root, final Object oid, final Object typmod) {
        return oid == null ? null : PgTypeCatalog.format(toInt(oid), typmod == null ? null : toInt(typmod));
    }

    public static String constraintDef(final DataContext root, final Object oid) {
        return constraintDefPretty(root, oid, Boolean.FALSE);
    }

    public static String constraintDefPretty(final DataContext root, final Object oid, final Object pretty) {
        if (oid == null) {
            return null;
        }
        return PgConstraints.definition(view(root), toInt(oid), Boolean.TRUE.equals(pretty));
    }

    public static String indexDef(final DataContext root, final Object oid) {
        final PgCatalogView.Relation r = relation(root, oid);
        return r == null || r.kind() != 'i' ? null : PgCatalogView.indexDef(r);
    }

    /**
     * {@code pg_get_indexdef(index, column, pretty)}: the whole definition for column 0, else the definition of the
     * index's key column {@code column} (1-based), which for MeldDB's indexes is the column's name; NULL past the
     * last.
     */
    public static String indexColumnDef(final DataContext root, final Object oid, final Object column,
                                        final Object pretty) {
        final PgCatalogView.Relation r = relation(root, oid);
        if (r == null || r.kind() != 'i' || column == null) {
            return null;
        }
        final int k = toInt(column);
        if (k == 0) {
            final String def = PgCatalogView.indexDef(r);
            // pretty: the table's schema only where the search path does not find it (PRETTYFLAG_SCHEMA)
            final String qualified = " ON " + PgCatalogView.quote(r.namespace().name()) + ".";
            final PgCatalogView v = view(root);
            return Boolean.TRUE.equals(pretty) && v.visible(v.tableOf(r)) ? def.replace(qualified, " ON ") : def;
        }
        return k < 0 || k > r.keyColumns().length ? null
                : PgCatalogView.quote(r.table().columns().get(r.keyColumns()[k - 1]).name());
    }

    /** {@code pg_get_viewdef(view, pretty)}: the view's query as stored, pretty or not. */
    public static String viewDefPretty(final DataContext root, final Object oid, final Object pretty) {
        return viewDef(root, oid);
    }

    /** {@code pg_get_expr(expression, relation, pretty)}: as {@link #expr}. */
    public static String exprPretty(final DataContext root, final Object expression, final Object relation,
                                    final Object pretty) {
        return expr(root, expression, relation);
    }

    /**
     * {@code pg_function_is_visible(oid)}: NULL, as PostgreSQL answers for an OID that names no function; MeldDB's
     * pg_proc lists none.
     */
    public static Boolean functionIsVisible(final DataContext root, final Object oid) {
        return null;
    }

    /**
     * {@code pg_table_size}, {@code pg_relation_size}, {@code pg_total_relation_size}, {@code pg_indexes_size}: NULL
     * (unknown). MeldDB's rows live in one tree shared by all tables, so a table has no size of its own to report.
     */
    public static Long relationSize(final DataContext root, final Object oid) {
        return null;
    }

    /** {@code pg_size_pretty(bigint)}, as PostgreSQL 15's dbsize.c writes a size: bytes, kB, MB, GB, TB or PB. */
    public static String sizePretty(final DataContext root, final Object bytes) {
        if (bytes == null) {
            return null;
        }
        final String[] names = {"bytes", "kB", "MB", "GB", "TB", "PB"};
        final long[] limits = {10 * 1024, 20 * 1024 - 1, 20 * 1024 - 1, 20 * 1024 - 1, 20 * 1024 - 1, 20 * 1024 - 1};
        final boolean[] round = {false, true, true, true, true, true};
        final int[] bits = {0, 10, 20, 30, 40, 50};
        long size = ((Number) bytes).longValue();
        for (int u = 0; ; u++) {
            if (u == names.length - 1 || Math.abs(size) < limits[u]) {
                if (round[u]) {
                    size = (size + (size < 0 ? -1 : 1)) / 2;
                }
                return size + " " + names[u];
            }
            final int shift = bits[u + 1] - bits[u] - (round[u + 1] ? 1 : 0) + (round[u] ? 1 : 0);
            size /= 1L << shift;
        }
    }

    /**
     * {@code pg_get_function_result}, {@code pg_get_function_arguments}, {@code
     * pg_get_function_identity_arguments}, {@code pg_get_functiondef}: NULL, as PostgreSQL answers for an OID that
     * names no function (MeldDB's pg_proc lists none).
     */
    public static String functionText(final DataContext root, final Object oid) {
        return null;
    }

    public static String viewDef(final DataContext root, final Object oid) {
        final PgCatalogView.Relation r = relation(root, oid);
        return r == null ? null : view(root).viewDefinition(r);
    }

    public static String expr(final DataContext root, final Object expression, final Object relation) {
        return expression == null ? null : expression.toString();
    }

    public static String userById(final DataContext root, final Object oid) {
        if (oid == null) {
            return null;
        }
        final int id = toInt(oid);
        return id == SystemSchemas.OWNER_OID ? PgCatalogView.sessionUser(context(root))
                : "unknown (OID=" + Integer.toUnsignedString(id) + ")";
    }

    public static String objDescription(final DataContext root, final Object oid, final Object catalog) {
        final PgCatalogView.Relation r = relation(root, oid);
        if (r == null || catalog == null || !"pg_class".equals(catalog.toString())) {
            return null;
        }
        return view(root).description(r, 0);
    }

    public static String colDescription(final DataContext root, final Object oid, final Object attnum) {
        final PgCatalogView.Relation r = relation(root, oid);
        if (r == null || attnum == null) {
            return null;
        }
        final int n = toInt(attnum);
        return n <= 0 || !r.hasColumns() || n > r.table().columns().size() ? null : view(root).description(r, n);
    }

    public static String shobjDescription(final DataContext root, final Object oid, final Object catalog) {
        return null; // MeldDB keeps no comments on databases, roles or tablespaces
    }

    /**
     * {@code pg_get_serial_sequence('t', 'id')}: the sequence a SERIAL or identity column owns, schema-qualified
     * ({@code public.t_id_seq}), or NULL; a table that does not exist is 42P01, a column 42703, as in PostgreSQL.
     * The table name is read as PostgreSQL reads a regclass: unquoted parts fold to lower case.
     */
    public static String serialSequence(final DataContext root, final Object table, final Object column) {
        if (table == null || column == null) {
            return null;
        }
        final PgCatalogView v = view(root);
        final String[] name = RegclassName.parse(table.toString());
        final String schema = name[0] == null ? Catalog.PUBLIC : name[0];
        PgCatalogView.Relation found = null;
        for (PgCatalogView.Relation r : v.relations()) {
            if (r.hasColumns() && r.name().equals(name[1]) && r.namespace().name().equals(schema)) {
                found = r;
            }
        }
        if (found == null) {
            throw new SqlStateException("42P01", "relation \"" + table + "\" does not exist");
        }
        final String col = column.toString();
        boolean exists = false;
        for (io.meldb.sql.catalog.ColumnDef c : found.table().columns()) {
            exists |= c.name().equals(col);
        }
        if (!exists) {
            throw new SqlStateException("42703", "column \"" + col + "\" of relation \"" + found.name()
                    + "\" does not exist");
        }
        for (SequenceDef q : v.sequences()) {
            if (found.name().equals(q.ownerTable()) && col.equals(q.ownerColumn()) && q.schema().equals(schema)) {
                return PgCatalogView.quote(q.schema()) + "." + PgCatalogView.quote(q.name());
            }
        }
        return null;
    }

    /**
     * {@code oid::regclass}: the relation's name as regclass prints it (schema-qualified when its schema is not in
     * the search path), or the number itself for an OID that names no relation, as PostgreSQL prints it.
     */
    public static String regclassOfOid(final DataContext root, final Object oid) {
        if (oid == null) {
            return null;
        }
        final PgCatalogView v = view(root);
        final PgCatalogView.Relation r = v.relation(toInt(oid));
        if (r == null) {
            return Integer.toUnsignedString(toInt(oid));
        }
        return (v.visible(r) ? "" : PgCatalogView.quote(r.namespace().name()) + ".") + PgCatalogView.quote(r.name());
    }

    /** {@code 'name'::regclass}: the relation a name finds (42P01 when none), printed as regclass prints it. */
    public static String regclassOfName(final DataContext root, final Object name) {
        return name == null ? null : regclassOfOid(root, relationOid(root, name.toString()));
    }

    /** {@code 'name'::regclass::oid}: the OID of the relation a name finds (42P01 when none). */
    public static Integer oidOfRegclass(final DataContext root, final Object name) {
        return name == null ? null : relationOid(root, name.toString());
    }

    /** {@code oid::regtype}: the type's name as format_type spells it, or the number for an unknown OID. */
    public static String regtypeOfOid(final DataContext root, final Object oid) {
        if (oid == null) {
            return null;
        }
        final int id = toInt(oid);
        return PgTypeCatalog.ofOid(id) == null ? Integer.toUnsignedString(id) : PgTypeCatalog.format(id, null);
    }

    /** {@code 'name'::regtype}: the type a name finds (42704 when none), printed as format_type spells it. */
    public static String regtypeOfName(final DataContext root, final Object name) {
        return name == null ? null : regtypeOfOid(root, PgTypeCatalog.oidOf(name.toString()));
    }

    /** {@code oid::regnamespace}: the schema's name, quoted where needed; the number for an OID that names none. */
    public static String regnamespaceOfOid(final DataContext root, final Object oid) {
        if (oid == null) {
            return null;
        }
        for (PgCatalogView.Namespace n : view(root).namespaces()) {
            if (n.oid() == toInt(oid)) {
                return PgCatalogView.quote(n.name());
            }
        }
        return Integer.toUnsignedString(toInt(oid));
    }

    /** {@code 'name'::regnamespace}: the schema a name finds, as regnamespace prints it; 3F000 when none. */
    public static String regnamespaceOfName(final DataContext root, final Object name) {
        final Integer oid = oidOfRegnamespace(root, name);
        return oid == null ? null : regnamespaceOfOid(root, oid);
    }

    /** {@code 'name'::regnamespace::oid}, and a regnamespace compared with an oid: the schema's OID. */
    public static Integer oidOfRegnamespace(final DataContext root, final Object name) {
        if (name == null) {
            return null;
        }
        final String text = name.toString().trim();
        if (!text.isEmpty() && text.chars().allMatch(Character::isDigit)) {
            return (int) Long.parseLong(text);
        }
        final String[] parsed = RegclassName.parse(text);
        if (parsed[0] == null) {
            for (PgCatalogView.Namespace n : view(root).namespaces()) {
                if (n.name().equals(parsed[1])) {
                    return n.oid();
                }
            }
        }
        throw new SqlStateException("3F000", "schema \"" + text + "\" does not exist");
    }

    /**
     * {@code 'name'::regproc}: the function's name as a regproc prints (no schema: MeldDB's functions are all in
     * pg_catalog, which is always searched); a schema other than pg_catalog is 42883, as no function is there.
     */
    public static String regprocOfName(final DataContext root, final Object name) {
        if (name == null) {
            return null;
        }
        final String[] parsed = RegclassName.parse(name.toString());
        if (parsed[0] != null && !parsed[0].equals("pg_catalog")) {
            throw new SqlStateException("42883", "function \"" + name + "\" does not exist");
        }
        return parsed[1];
    }

    /** {@code 'name'::regtype::oid}, and a regtype compared with an oid: the OID of the type a name finds. */
    public static Integer oidOfRegtype(final DataContext root, final Object name) {
        return name == null ? null : PgTypeCatalog.oidOf(name.toString());
    }

    /** The OID of the relation {@code text} names (a number is taken as the OID itself), or 42P01. */
    private static int relationOid(final DataContext root, final String text) {
        final String t = text.trim();
        if (!t.isEmpty() && t.chars().allMatch(Character::isDigit)) {
            return (int) Long.parseLong(t);
        }
        final String[] name = RegclassName.parse(t);
        final PgCatalogView v = view(root);
        for (PgCatalogView.Relation r : v.classes()) {
            if (r.name().equals(name[1]) && (name[0] == null ? v.visible(r) : r.namespace().name().equals(name[0]))) {
                return r.oid();
            }
        }
        throw new SqlStateException("42P01", "relation \"" + t + "\" does not exist");
    }

    public static Boolean isInRecovery(final DataContext root) {
        return Boolean.FALSE;
    }

    public static String encodingToChar(final DataContext root, final Object encoding) {
        if (encoding == null) {
            return null;
        }
        return switch (toInt(encoding)) {
            case 0 -> "SQL_ASCII";
            case 6 -> "UTF8";
            case 8 -> "LATIN1";
            default -> "";
        };
    }

    // ------------------------------------------------------------------ helpers

    private static PgCatalogView.Relation relation(final DataContext root, final Object oid) {
        return oid == null ? null : view(root).relation(toInt(oid));
    }

    /** The catalog view of the statement's transaction, built once per catalog the connection sees. */
    /** The connection the statement runs on (its session's user owns the catalog's objects). */
    private static io.meldb.sql.calcite.MeldTxnContext context(final DataContext root) {
        final MeldRootSchema schema = root.getRootSchema().unwrap(MeldRootSchema.class);
        if (schema == null) {
            throw new SqlStateException("0A000", "the system catalogs are not available here");
        }
        return schema.context();
    }

    static PgCatalogView view(final DataContext root) {
        final MeldRootSchema schema = root.getRootSchema().unwrap(MeldRootSchema.class);
        if (schema == null) {
            throw new SqlStateException("0A000", "the system catalogs are not available here");
        }
        return schema.derived(c -> PgCatalogView.of(c, PgCatalogView.DATABASE, Catalog.PUBLIC));
    }

    /** An oid, int2, int4 or int8 argument as an int (oids above 2^31 wrap, as PostgreSQL's unsigned oids do). */
    static int toInt(final Object value) {
        if (value instanceof Number n) {
            return (int) n.longValue();
        }
        try {
            return (int) Long.parseLong(value.toString().trim());
        } catch (NumberFormatException e) {
            throw new SqlStateException("22P02", "invalid input syntax for type oid: \"" + value + "\"");
        }
    }
}
