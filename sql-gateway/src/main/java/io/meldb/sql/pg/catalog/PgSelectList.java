package io.meldb.sql.pg.catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The output column names of a query's outermost select list, named as PostgreSQL names them: the alias after
 * AS (unquoted ones in lower case), else the column's or function's name, else {@code ?column?}. Commas and
 * FROM inside parentheses, strings and quoted names do not count.
 */
final class PgSelectList {
    private static final Pattern ALIAS = Pattern.compile("(?is).*\\s+AS\\s+(\"(?:[^\"]|\"\")*\"|[A-Za-z_]\\w*)");
    private static final Pattern COLUMN = Pattern.compile("[\\w.]+");
    private static final Pattern CALL = Pattern.compile("(?s)([\\w.]+)\\s*\\(.*");

    private PgSelectList() {
    }

    /** The names of the columns, or an empty list when the query starts with no SELECT. */
    static List<String> names(final String sql) {
        final List<String> out = new ArrayList<>();
        for (String item : items(sql)) {
            out.add(name(item));
        }
        return out;
    }

    private static List<String> items(final String sql) {
        final List<String> items = new ArrayList<>();
        final Matcher select = Pattern.compile("(?i)\\bSELECT\\b").matcher(sql);
        if (!select.find()) {
            return items;
        }
        int depth = 0;
        int start = select.end();
        final int n = sql.length();
        for (int i = start; i < n; i++) {
            final char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                int j = i + 1;
                while (j < n && !(sql.charAt(j) == c && (j + 1 >= n || sql.charAt(j + 1) != c))) {
                    j += sql.charAt(j) == c ? 2 : 1;
                }
                i = j;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (depth == 0 && c == ',') {
                items.add(sql.substring(start, i).trim());
                start = i + 1;
            } else if (depth == 0 && (c == 'F' || c == 'f') && sql.regionMatches(true, i, "FROM", 0, 4)
                    && (i == 0 || !Character.isLetterOrDigit(sql.charAt(i - 1)) && sql.charAt(i - 1) != '_')
                    && (i + 4 >= n || !Character.isLetterOrDigit(sql.charAt(i + 4)) && sql.charAt(i + 4) != '_')) {
                items.add(sql.substring(start, i).trim());
                return items;
            }
        }
        items.add(sql.substring(start).trim().replaceAll(";\\s*$", ""));
        return items;
    }

    private static String name(final String item) {
        final Matcher alias = ALIAS.matcher(item);
        if (alias.matches()) {
            final String a = alias.group(1);
            return a.startsWith("\"") ? a.substring(1, a.length() - 1).replace("\"\"", "\"")
                    : a.toLowerCase(Locale.ROOT);
        }
        if (COLUMN.matcher(item).matches() && !Character.isDigit(item.charAt(0))) {
            return lastPart(item);
        }
        final Matcher call = CALL.matcher(item);
        if (call.matches()) {
            return lastPart(call.group(1));
        }
        return "?column?";
    }

    private static String lastPart(final String dotted) {
        return dotted.substring(dotted.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
    }
}
