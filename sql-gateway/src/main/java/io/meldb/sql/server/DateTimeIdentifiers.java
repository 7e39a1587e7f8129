package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.SqlLexer;
import io.meldb.sql.catalog.SqlLexer.Kind;
import io.meldb.sql.catalog.SqlLexer.Token;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;

/**
 * Quotes {@code date}, {@code time} and {@code timestamp} where a query uses them as column names, which PostgreSQL
 * allows unquoted and Calcite's parsers (MeldDB's too, so far) do not: {@code SELECT date FROM orders WHERE date >
 * DATE '2024-01-01'} reaches Calcite as {@code SELECT "date" FROM orders WHERE "date" > DATE '2024-01-01'}. The word
 * stays a keyword where it starts a literal ({@code DATE '...'}), a type with a precision or zone ({@code
 * TIMESTAMP(3)}, {@code TIMESTAMP WITH TIME ZONE}, {@code AT TIME ZONE}) or a CAST's target type; everywhere else it is
 * a name.
 * String literals, quoted identifiers and comments are left as they are.
 */
final class DateTimeIdentifiers {
    private DateTimeIdentifiers() {
    }

    /** {@code sql} with the date/time words that are names quoted (the same string when there is none). */
    static String quote(final String sql) {
        final String lower = sql.toLowerCase(Locale.ROOT);
        if (!lower.contains("date") && !lower.contains("time")) {
            return sql;
        }
        final List<Token> tokens;
        try {
            tokens = SqlLexer.tokenize(sql);
        } catch (SqlStateException e) {
            return sql; // Calcite reports the broken literal or identifier in its words
        }
        StringBuilder out = null;
        int copied = 0;
        final Deque<Boolean> castParens = new ArrayDeque<>();
        for (int i = 0; i < tokens.size(); i++) {
            final Token t = tokens.get(i);
            if (t.kind() == Kind.SYMBOL && t.text().equals("(")) {
                castParens.push(i > 0 && tokens.get(i - 1).is("CAST"));
                continue;
            }
            if (t.kind() == Kind.SYMBOL && t.text().equals(")")) {
                castParens.poll();
                continue;
            }
            if (!(t.is("DATE") || t.is("TIME") || t.is("TIMESTAMP"))
                    || isKeyword(tokens, i, !castParens.isEmpty() && castParens.peek())) {
                continue;
            }
            if (out == null) {
                out = new StringBuilder(sql.length() + 8);
            }
            out.append(sql, copied, t.position()).append('"').append(t.text().toLowerCase(Locale.ROOT)).append('"');
            copied = t.position() + t.text().length();
        }
        return out == null ? sql : out.append(sql, copied, sql.length()).toString();
    }

    private static boolean isKeyword(final List<Token> tokens, final int i, final boolean inCast) {
        final Token next = tokens.get(i + 1);
        final Token prev = i > 0 ? tokens.get(i - 1) : null;
        if (next.kind() == Kind.STRING || next.is("WITH") || next.is("WITHOUT") || next.is("ZONE")
                || next.kind() == Kind.SYMBOL && next.text().equals("(")) {
            return true;
        }
        if (prev == null) {
            return false;
        }
        return prev.is("AT") || prev.is("WITH") || prev.is("WITHOUT") || inCast && prev.is("AS")
                || prev.kind() == Kind.SYMBOL && prev.text().equals(":");
    }
}
