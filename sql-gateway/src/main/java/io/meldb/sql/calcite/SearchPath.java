package io.meldb.sql.calcite;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * PostgreSQL's reading of the {@code search_path} setting, for {@code current_schema} and
 * {@code current_schemas(include_implicit)}: a comma-separated list of schema names, each folded to lower case
 * unless double-quoted ({@code ""} inside quotes is one quote); {@code $user} stands for the schema named after the
 * session's user. The schemas in effect are those of the list that exist, in order and without repeats;
 * {@code pg_catalog} is searched first when the list does not name it, and counts as implicit then
 * (PostgreSQL's {@code fetch_search_path}). {@code current_schema} is the first schema in effect, or NULL when none
 * exists.
 */
public final class SearchPath {
    /** The entry that stands for the session user's schema. */
    static final String USER = "$user";
    /** The schema PostgreSQL searches first unless the path places it. */
    static final String PG_CATALOG = "pg_catalog";

    private SearchPath() {
    }

    /** The names of a search_path value, as written ({@code $user} kept), in order. */
    static List<String> parse(final String value) {
        final List<String> out = new ArrayList<>();
        int i = 0;
        final int n = value.length();
        while (i < n) {
            while (i < n && Character.isWhitespace(value.charAt(i))) {
                i++;
            }
            final StringBuilder name = new StringBuilder();
            if (i < n && value.charAt(i) == '"') {
                i++;
                while (i < n) {
                    final char c = value.charAt(i++);
                    if (c == '"') {
                        if (i < n && value.charAt(i) == '"') {
                            name.append('"');
                            i++;
                        } else {
                            break;
                        }
                    } else {
                        name.append(c);
                    }
                }
                while (i < n && value.charAt(i) != ',') {
                    i++;
                }
            } else {
                final int start = i;
                while (i < n && value.charAt(i) != ',') {
                    i++;
                }
                name.append(value.substring(start, i).trim().toLowerCase(Locale.ROOT));
            }
            if (!name.isEmpty()) {
                out.add(name.toString());
            }
            i++; // the comma
        }
        return out;
    }

    /**
     * The schemas in effect under {@code searchPath} for {@code user}: those of the path that {@code exists}
     * accepts, in order and each once, with {@code pg_catalog} first when {@code implicit} and the path does not
     * name it.
     */
    public static List<String> schemas(final String searchPath, final String user, final Predicate<String> exists,
                                       final boolean implicit) {
        final List<String> out = new ArrayList<>();
        final List<String> names = parse(searchPath);
        if (implicit && !names.contains(PG_CATALOG)) {
            out.add(PG_CATALOG);
        }
        for (String name : names) {
            final String schema = name.equals(USER) ? user : name;
            if (schema != null && !out.contains(schema) && exists.test(schema)) {
                out.add(schema);
            }
        }
        return out;
    }

    /** {@code current_schema}: the first schema in effect, or null when no schema of the path exists. */
    public static String current(final String searchPath, final String user, final Predicate<String> exists) {
        final List<String> schemas = schemas(searchPath, user, exists, false);
        return schemas.isEmpty() ? null : schemas.get(0);
    }
}
