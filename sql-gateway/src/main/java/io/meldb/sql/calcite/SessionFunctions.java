package io.meldb.sql.calcite;

import com.google.common.collect.LinkedListMultimap;
import com.google.common.collect.Multimap;
import io.meldb.sql.MeldVersion;
import io.meldb.sql.SqlStateException;
import io.meldb.sql.pg.catalog.SystemSchemas;
import org.apache.calcite.DataContext;
import org.apache.calcite.schema.Function;
import org.apache.calcite.sql.type.SqlTypeName;

import java.util.List;

/**
 * PostgreSQL's session information and configuration functions, answered from the session the statement runs in
 * ({@link SessionParameters}, reached through the statement's {@link DataContext}): {@code version()},
 * {@code current_database()}, {@code pg_backend_pid()}, {@code current_setting(name [, missing_ok])},
 * {@code set_config(name, value, is_local)}, {@code current_schemas(include_implicit)}, and the values of the
 * SQL keywords {@code current_user}, {@code session_user}, {@code current_role}, {@code user},
 * {@code current_catalog} and {@code current_schema} ({@link SessionKeywords}). current_user, session_user,
 * current_role and user are the session's user (MeldDB has no roles); current_database and current_catalog the
 * database, {@code meldb}; current_schema the first schema of search_path that exists ({@link SearchPath}). The
 * names are of PostgreSQL's type {@code name} ({@link PgNameType}), version, current_setting and set_config text.
 *
 * <p>As in PostgreSQL, {@code current_setting} of a parameter the session does not have is 42704 (NULL with
 * {@code missing_ok}), and is NULL for a NULL argument; {@code set_config} sets the parameter as SET (or SET LOCAL)
 * does and answers its new value, and a NULL value sets the default. None of them is ever folded into a constant:
 * each reads the session when it runs.
 */
public final class SessionFunctions {
    private SessionFunctions() {
    }

    /** The functions, by the upper-case names unquoted calls reach the schema with ({@link FunctionNames}). */
    static Multimap<String, Function> functions() {
        final Multimap<String, Function> f = LinkedListMultimap.create();
        final SqlTypeName text = SqlTypeName.VARCHAR;
        f.put("VERSION", ContextFunction.of(SessionFunctions.class, "version"));
        f.put("CURRENT_DATABASE", ContextFunction.returning(t -> PgNameType.of(t, false), SessionFunctions.class,
                "currentDatabase"));
        f.put("PG_BACKEND_PID", ContextFunction.of(SessionFunctions.class, "backendPid"));
        f.put("CURRENT_SETTING", ContextFunction.of(SessionFunctions.class, "currentSetting", text));
        f.put("CURRENT_SETTING", ContextFunction.of(SessionFunctions.class, "currentSettingMissingOk", text,
                SqlTypeName.BOOLEAN));
        f.put("SET_CONFIG", ContextFunction.of(SessionFunctions.class, "setConfig", text, text,
                SqlTypeName.BOOLEAN));
        f.put("CURRENT_SCHEMAS", ContextFunction.of(SessionFunctions.class, "currentSchemas",
                SqlTypeName.BOOLEAN));
        return f;
    }

    // ------------------------------------------------------------------ what generated code calls

    /** {@code version()}: PostgreSQL's version (server_version), then MeldDB's. */
    public static String version(final DataContext root) {
        return "PostgreSQL " + parameters(root).find("server_version") + " on MeldDB " + MeldVersion.VERSION
                + ", a transactional SQL database on the JVM (Java " + Runtime.version().feature() + ")";
    }

    /** {@code current_database()} and {@code current_catalog}. */
    public static String currentDatabase(final DataContext root) {
        return context(root).database();
    }

    /** {@code current_user}, {@code session_user}, {@code current_role}, {@code user}. */
    public static String currentUser(final DataContext root) {
        return parameters(root).user();
    }

    /** {@code current_schema}: the first schema of the search path that exists, or NULL. */
    public static String currentSchema(final DataContext root) {
        final MeldTxnContext context = context(root);
        final SessionParameters session = context.sessionParameters();
        return SearchPath.current(session.find("search_path"), session.user(), schemaExists(context));
    }

    /**
     * {@code current_schemas(include_implicit)}: the schemas of the search path that exist, in order; with true
     * also pg_catalog, which is searched first when the path does not place it.
     */
    public static List<String> currentSchemas(final DataContext root, final Boolean implicit) {
        if (implicit == null) {
            return null;
        }
        final MeldTxnContext context = context(root);
        final SessionParameters session = context.sessionParameters();
        return SearchPath.schemas(session.find("search_path"), session.user(), schemaExists(context), implicit);
    }

    public static int backendPid(final DataContext root) {
        return parameters(root).processId();
    }

    /** {@code current_setting(name)}: 42704 for a parameter the session does not have. */
    public static String currentSetting(final DataContext root, final String name) {
        return currentSettingMissingOk(root, name, Boolean.FALSE);
    }

    /** {@code current_setting(name, missing_ok)}: NULL rather than 42704 with {@code missing_ok}. */
    public static String currentSettingMissingOk(final DataContext root, final String name,
                                                 final Boolean missingOk) {
        if (name == null || missingOk == null) {
            return null;
        }
        final String value = parameters(root).find(name);
        if (value == null && !missingOk) {
            throw new SqlStateException("42704", "unrecognized configuration parameter \"" + name + "\"");
        }
        return value;
    }

    /** {@code set_config(name, value, is_local)}: SET (SET LOCAL when is_local), answering the new value. */
    public static String setConfig(final DataContext root, final String name, final String value,
                                   final Boolean local) {
        if (name == null) {
            throw new SqlStateException("22004", "SET requires parameter name");
        }
        return parameters(root).set(name, value, Boolean.TRUE.equals(local));
    }

    // ------------------------------------------------------------------ helpers

    private static java.util.function.Predicate<String> schemaExists(final MeldTxnContext context) {
        final java.util.Set<String> schemas = context.catalog().schemaNames(context.database());
        return name -> schemas.contains(name) || name.equals(SystemSchemas.PG_CATALOG)
                || name.equals(SystemSchemas.INFORMATION_SCHEMA);
    }

    private static SessionParameters parameters(final DataContext root) {
        return context(root).sessionParameters();
    }

    private static MeldTxnContext context(final DataContext root) {
        final MeldRootSchema schema = root.getRootSchema() == null ? null
                : root.getRootSchema().unwrap(MeldRootSchema.class);
        if (schema == null) {
            throw new SqlStateException("0A000", "the session functions are not available here");
        }
        return schema.context();
    }
}
