package io.meldb.sql.pg;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits the text of a simple Query message into its statements at the semicolons outside string literals
 * (standard, E'' escape and dollar-quoted), quoted identifiers and comments. Statements that are empty (only
 * blanks and comments) are dropped, so "SELECT 1;" is one statement and ";" none.
 */
final class PgSqlSplitter {
    private PgSqlSplitter() {
    }

    static List<String> split(final String sql) {
        final List<String> out = new ArrayList<>(1);
        final int n = sql.length();
        int start = 0;
        boolean content = false;
        int i = 0;
        while (i < n) {
            final char c = sql.charAt(i);
            if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                while (i < n && sql.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int depth = 1;
                i += 2;
                while (i < n && depth > 0) {
                    if (sql.startsWith("/*", i)) {
                        depth++;
                        i += 2;
                    } else if (sql.startsWith("*/", i)) {
                        depth--;
                        i += 2;
                    } else {
                        i++;
                    }
                }
            } else if (c == '\'' ) {
                final boolean escapes = i > 0 && (sql.charAt(i - 1) == 'E' || sql.charAt(i - 1) == 'e')
                        && (i < 2 || !Character.isLetterOrDigit(sql.charAt(i - 2)));
                i = skipQuoted(sql, i, '\'', escapes);
                content = true;
            } else if (c == '"') {
                i = skipQuoted(sql, i, '"', false);
                content = true;
            } else if (c == '$' && (i == 0 || !Character.isLetterOrDigit(sql.charAt(i - 1)))) {
                final int tagEnd = dollarTagEnd(sql, i);
                if (tagEnd < 0) {
                    i++;
                } else {
                    final String tag = sql.substring(i, tagEnd + 1);
                    final int close = sql.indexOf(tag, tagEnd + 1);
                    i = close < 0 ? n : close + tag.length();
                }
                content = true;
            } else if (c == ';') {
                if (content) {
                    out.add(sql.substring(start, i).trim());
                }
                start = i + 1;
                content = false;
                i++;
            } else {
                if (!Character.isWhitespace(c)) {
                    content = true;
                }
                i++;
            }
        }
        if (content) {
            final String last = sql.substring(start).trim();
            if (!last.isEmpty()) {
                out.add(last);
            }
        }
        return out;
    }

    /** The index after the literal or quoted identifier that opens at {@code open} (doubled quotes stay inside). */
    static int skipQuoted(final String sql, final int open, final char quote, final boolean escapes) {
        int i = open + 1;
        final int n = sql.length();
        while (i < n) {
            final char c = sql.charAt(i);
            if (escapes && c == '\\') {
                i += 2;
            } else if (c == quote) {
                if (i + 1 < n && sql.charAt(i + 1) == quote) {
                    i += 2;
                } else {
                    return i + 1;
                }
            } else {
                i++;
            }
        }
        return n;
    }

    /** The index of the closing '$' of a dollar-quote tag opening at {@code i}, or -1 when there is none. */
    private static int dollarTagEnd(final String sql, final int i) {
        int j = i + 1;
        while (j < sql.length()) {
            final char c = sql.charAt(j);
            if (c == '$') {
                return j;
            }
            if (!(Character.isLetterOrDigit(c) || c == '_') || (j == i + 1 && Character.isDigit(c))) {
                return -1;
            }
            j++;
        }
        return -1;
    }
}
