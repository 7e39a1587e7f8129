package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.SqlLexer;
import io.meldb.sql.catalog.SqlLexer.Kind;
import io.meldb.sql.catalog.SqlLexer.Token;

import java.util.ArrayList;
import java.util.List;

/**
 * Lifts the integer literals of a simple Query's statement into parameters, so that statements which differ only in
 * those values share one shape, and so one plan in the session's plan cache (keyed by SQL text): a client in the
 * simple query protocol (psql scripts, pgbench -M simple, drivers that interpolate values) otherwise sends new SQL
 * text for every statement, and each one was parsed, validated and planned by Calcite again.
 *
 * <p>Only where a parameter means what the literal meant: an integer (digits only, optionally negated) right after a
 * comparison or {@code + - *} operator, or a whole item of an INSERT's VALUES rows. Never in LIMIT/OFFSET, ORDER
 * BY positions, type precisions, function arguments, IN lists, or anything not an integer. {@link PgLiteralShapes}
 * then accepts the shape only if every parameter is typed INTEGER or BIGINT by the statement (as the literal would
 * have been), and falls back to the original text on anything else.
 */
final class PgLiteralLifter {
    /** Longest integer literal lifted (fits a long). */
    private static final int MAX_DIGITS = 18;

    /** The statement's shape, with $1..$n where the literals were, and the literals' text in order. */
    record Lifted(String shape, List<String> literals) {
    }

    private PgLiteralLifter() {
    }

    /** The lifted form of {@code sql}, or null when it has no literal to lift (or cannot be tokenized). */
    static Lifted lift(final String sql) {
        if (sql.indexOf('$') >= 0 || sql.indexOf('?') >= 0 || sql.contains("::")) {
            return null; // parameters or casts of its own: left alone
        }
        final List<Token> tokens;
        try {
            tokens = SqlLexer.tokenize(sql);
        } catch (SqlStateException e) {
            return null; // the planner reports it
        }
        StringBuilder out = null;
        List<String> literals = null;
        int copied = 0;
        boolean inValues = false;
        int depth = 0;
        for (int i = 0; i < tokens.size(); i++) {
            final Token t = tokens.get(i);
            if (t.kind() == Kind.WORD && !t.quoted()) {
                if (t.text().equals("VALUES")) {
                    inValues = true;
                } else if (depth == 0) {
                    inValues = false; // RETURNING, ON CONFLICT, SELECT ...: past the rows
                }
            } else if (t.kind() == Kind.SYMBOL) {
                if (t.text().equals("(")) {
                    depth++;
                } else if (t.text().equals(")")) {
                    depth--;
                }
            }
            if (t.kind() != Kind.NUMBER || !integer(sql, t)) {
                continue;
            }
            int start = i;
            if (unaryMinus(tokens, i)) {
                start = i - 1;
            }
            final Token before = start > 0 ? tokens.get(start - 1) : null;
            if (before == null || !valuePosition(before, inValues && depth == 1)) {
                continue;
            }
            if (out == null) {
                out = new StringBuilder(sql.length() + 8);
                literals = new ArrayList<>();
            }
            final int from = tokens.get(start).position();
            out.append(sql, copied, from);
            literals.add(sql.substring(from, t.position() + t.text().length()).replace(" ", ""));
            out.append('$').append(literals.size());
            copied = t.position() + t.text().length();
        }
        if (out == null) {
            return null;
        }
        out.append(sql, copied, sql.length());
        return new Lifted(out.toString(), List.copyOf(literals));
    }

    /** Digits only, and not the start of something longer (1e5, 1.5, 12abc). */
    private static boolean integer(final String sql, final Token t) {
        final String s = t.text();
        if (s.length() > MAX_DIGITS || s.indexOf('.') >= 0) {
            return false;
        }
        final int end = t.position() + s.length();
        return end >= sql.length() || !(Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_');
    }

    /** Whether the number at {@code i} is negated by a '-' that is not a subtraction. */
    private static boolean unaryMinus(final List<Token> tokens, final int i) {
        if (i < 2 || !symbol(tokens.get(i - 1), "-")) {
            return false;
        }
        final Token before = tokens.get(i - 2);
        return before.kind() == Kind.SYMBOL && "=<>+*(,".contains(before.text());
    }

    private static boolean valuePosition(final Token before, final boolean valuesItem) {
        if (before.kind() != Kind.SYMBOL) {
            return false;
        }
        final String s = before.text();
        if (s.equals("=") || s.equals("<") || s.equals(">") || s.equals("+") || s.equals("-") || s.equals("*")) {
            return true;
        }
        return valuesItem && (s.equals("(") || s.equals(","));
    }

    private static boolean symbol(final Token t, final String s) {
        return t.kind() == Kind.SYMBOL && t.text().equals(s);
    }
}
