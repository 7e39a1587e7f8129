package io.meldb.sql.pg.catalog;

import io.meldb.sql.catalog.LikePattern;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A test on a name that a catalog query's WHERE clause makes: psql's regular expressions
 * ({@code c.relname OPERATOR(pg_catalog.~) '^(t)$'}), pgjdbc's {@code LIKE} patterns and equalities, against a
 * string literal ({@code '...'} or {@code E'...'}, in parentheses as pgjdbc's simple query mode sends parameters)
 * or a parameter ({@code $n}, bound at execution).
 *
 * <p>Clients fold unquoted names to lower case while MeldDB stores them upper case, so a test selects the names
 * that match exactly when there are any, and otherwise the names that match ignoring case: {@code \d t} finds
 * table {@code T}, and a quoted lower-case {@code "t"} still wins over {@code T} when both exist.
 */
final class PgNameFilter {
    private static final String OPERATORS = "(OPERATOR\\s*\\(\\s*pg_catalog\\s*\\.\\s*~\\s*\\)|~|LIKE|=)";
    private static final String OPERAND = "(E?'(?:[^'\\\\]|''|\\\\.)*'|\\$\\d+)";
    private static final Pattern PARAMETER = Pattern.compile("\\$(\\d+)");
    private static final Pattern WHERE = Pattern.compile("(?i)\\bWHERE\\b");

    private enum Op { REGEX, LIKE, EQUALS }

    private final Op op;
    /** The literal text, or null for a parameter. */
    private final String literal;
    private final int parameter;

    private PgNameFilter(final Op op, final String literal, final int parameter) {
        this.op = op;
        this.literal = literal;
        this.parameter = parameter;
    }

    /** The text from the first WHERE on (where clients put their filters), or "" when there is none. */
    static String whereOf(final String sql) {
        final Matcher m = WHERE.matcher(sql);
        return m.find() ? sql.substring(m.start()) : "";
    }

    /**
     * The first test on one of {@code columns} (as the query spells them, e.g. "c.relname") in {@code where},
     * or null when there is none.
     */
    static PgNameFilter find(final String where, final String... columns) {
        PgNameFilter best = null;
        int at = Integer.MAX_VALUE;
        for (String column : columns) {
            final Matcher m = Pattern.compile("(?i)(?<![\\w.])" + Pattern.quote(column) + "\\s*" + OPERATORS
                    + "\\s*\\(?\\s*" + OPERAND).matcher(where);
            if (m.find() && m.start() < at) {
                at = m.start();
                final String o = m.group(1).toUpperCase(Locale.ROOT);
                final Op op = o.equals("LIKE") ? Op.LIKE : o.equals("=") ? Op.EQUALS : Op.REGEX;
                final String operand = m.group(2);
                best = operand.startsWith("$") ? new PgNameFilter(op, null, Integer.parseInt(operand.substring(1)) - 1)
                        : new PgNameFilter(op, literal(operand), -1);
            }
        }
        return best;
    }

    /** The OID of a test {@code column = 'N'} or {@code column = N} in {@code where}, or -1. */
    static int oid(final String where, final String column) {
        final Matcher m = Pattern.compile("(?i)(?<![\\w.])" + Pattern.quote(column) + "\\s*=\\s*'?(\\d+)'?")
                .matcher(where);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    /** The number of parameters a statement has: its highest {@code $n}. */
    static int parameterCount(final String sql) {
        final Matcher m = PARAMETER.matcher(sql);
        int n = 0;
        while (m.find()) {
            n = Math.max(n, Integer.parseInt(m.group(1)));
        }
        return n;
    }

    /** The items whose name passes the test: exact matches if any, otherwise matches ignoring case. */
    <T> List<T> select(final List<T> items, final Function<T, String> name, final Object[] parameters) {
        final String text = literal != null ? literal
                : parameter < parameters.length && parameters[parameter] != null ? parameters[parameter].toString()
                : null;
        if (text == null) {
            return List.of();
        }
        final String regex = switch (op) {
            case REGEX -> text;
            case LIKE -> LikePattern.toRegex(text);
            case EQUALS -> Pattern.quote(text);
        };
        // a regular expression searches (psql anchors its own with ^ and $); LIKE and = match the whole name
        final boolean search = op == Op.REGEX;
        final List<T> out = matching(items, name, Pattern.compile(regex, Pattern.DOTALL), search);
        return out.isEmpty() ? matching(items, name, Pattern.compile(regex,
                Pattern.DOTALL | Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE), search) : out;
    }

    /** {@code select} when there is a filter, all items otherwise. */
    static <T> List<T> select(final PgNameFilter filter, final List<T> items, final Function<T, String> name,
                              final Object[] parameters) {
        return filter == null ? items : filter.select(items, name, parameters);
    }

    private static <T> List<T> matching(final List<T> items, final Function<T, String> name, final Pattern p,
                                        final boolean search) {
        final List<T> out = new ArrayList<>();
        for (T item : items) {
            final Matcher m = p.matcher(name.apply(item));
            if (search ? m.find() : m.matches()) {
                out.add(item);
            }
        }
        return out;
    }

    /** The value of a string literal: {@code ''} is a quote; in {@code E'...'} backslash escapes a character. */
    static String literal(final String quoted) {
        final boolean escapes = quoted.charAt(0) == 'E' || quoted.charAt(0) == 'e';
        final String body = quoted.substring(escapes ? 2 : 1, quoted.length() - 1);
        final StringBuilder b = new StringBuilder(body.length());
        for (int i = 0; i < body.length(); i++) {
            final char c = body.charAt(i);
            if (c == '\'' && i + 1 < body.length() && body.charAt(i + 1) == '\'') {
                b.append('\'');
                i++;
            } else if (escapes && c == '\\' && i + 1 < body.length()) {
                final char e = body.charAt(++i);
                b.append(switch (e) {
                    case 'n' -> '\n';
                    case 't' -> '\t';
                    case 'r' -> '\r';
                    default -> e;
                });
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
