package io.meldb.sql.catalog;

import java.util.regex.Pattern;

/**
 * SQL {@code LIKE} patterns as Java regular expressions, with PostgreSQL's default escape (a backslash takes the
 * next character literally): {@code %} is any run, {@code _} any one character. Calcite has the same conversion,
 * but not public; CHECK constraints and the pg_catalog name filters both need it.
 */
public final class LikePattern {
    private LikePattern() {
    }

    /** The regular expression that matches exactly what {@code like} matches. */
    public static String toRegex(final String like) {
        final StringBuilder b = new StringBuilder();
        for (int i = 0; i < like.length(); i++) {
            final char c = like.charAt(i);
            if (c == '\\' && i + 1 < like.length()) {
                b.append(Pattern.quote(String.valueOf(like.charAt(++i))));
            } else if (c == '%') {
                b.append(".*");
            } else if (c == '_') {
                b.append('.');
            } else {
                b.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return b.toString();
    }
}
