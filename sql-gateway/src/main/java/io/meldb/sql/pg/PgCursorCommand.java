package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.SqlLexer;
import io.meldb.sql.catalog.SqlLexer.Kind;
import io.meldb.sql.catalog.SqlLexer.Token;

import java.util.List;

/**
 * PostgreSQL's SQL-level cursor statements as PostgreSQL 15's grammar reads them (gram.y: DeclareCursorStmt,
 * FetchStmt, ClosePortalStmt): {@code DECLARE name [BINARY] [ASENSITIVE | INSENSITIVE] [[NO] SCROLL] CURSOR [{WITH |
 * WITHOUT} HOLD] FOR query}, {@code FETCH | MOVE [direction] [FROM | IN] name} and {@code CLOSE name | ALL}.
 * {@link PgCursorCommands} carries them out.
 */
sealed interface PgCursorCommand {
    /** FETCH ALL, FORWARD ALL, BACKWARD ALL: PostgreSQL's FETCH_ALL. */
    long ALL = Long.MAX_VALUE;

    /** The directions of FETCH and MOVE, as PostgreSQL's FetchDirection. */
    enum Direction { FORWARD, BACKWARD, ABSOLUTE, RELATIVE }

    /**
     * DECLARE: the cursor's name (as an identifier: folded unless quoted), its options, and the text of its query.
     * {@code scroll} is null when neither SCROLL nor NO SCROLL was written.
     */
    record Declare(String name, boolean binary, boolean insensitive, Boolean scroll, boolean hold, String query)
            implements PgCursorCommand {
    }

    /** FETCH ({@code move} false) or MOVE: {@code count} rows (or {@link #ALL}) in {@code direction}. */
    record Fetch(String name, Direction direction, long count, boolean move) implements PgCursorCommand {
    }

    /** CLOSE name, or CLOSE ALL ({@code name} null). */
    record Close(String name) implements PgCursorCommand {
    }

    /** The cursor statement {@code sql} begins with {@code first} (DECLARE, FETCH, MOVE or CLOSE). */
    static PgCursorCommand parse(final String sql, final String first) {
        final List<Token> tokens = SqlLexer.tokenize(sql);
        final PgCommand.Cursor c = new PgCommand.Cursor(tokens);
        c.next(); // the first keyword
        return switch (first) {
            case "DECLARE" -> declare(sql, c);
            case "FETCH" -> fetch(sql, c, false);
            case "MOVE" -> fetch(sql, c, true);
            default -> {
                if (c.accept("ALL")) {
                    c.end();
                    yield new Close(null);
                }
                final String name = name(sql, c);
                c.end();
                yield new Close(name);
            }
        };
    }

    private static Declare declare(final String sql, final PgCommand.Cursor c) {
        final String name = name(sql, c);
        boolean binary = false;
        boolean insensitive = false;
        boolean asensitive = false;
        boolean scroll = false;
        boolean noScroll = false;
        while (!c.accept("CURSOR")) {
            if (c.accept("BINARY")) {
                binary = true;
            } else if (c.accept("INSENSITIVE")) {
                insensitive = true;
            } else if (c.accept("ASENSITIVE")) {
                asensitive = true;
            } else if (c.accept("SCROLL")) {
                scroll = true;
            } else if (c.accept("NO")) {
                c.expect("SCROLL");
                noScroll = true;
            } else {
                throw syntaxError(sql, c);
            }
        }
        boolean hold = false;
        if (c.accept("WITH")) {
            c.expect("HOLD");
            hold = true;
        } else if (c.accept("WITHOUT")) {
            c.expect("HOLD");
        }
        if (!c.peekIs("FOR")) {
            throw syntaxError(sql, c);
        }
        c.next();
        final Token start = c.peek();
        // gram.y: FOR SelectStmt (SELECT, VALUES, TABLE, WITH, or one in parentheses)
        if (!(start.is("SELECT") || start.is("VALUES") || start.is("WITH") || start.is("TABLE")
                || start.kind() == Kind.SYMBOL && start.text().equals("("))) {
            throw syntaxError(sql, c);
        }
        if (scroll && noScroll) {
            throw new SqlStateException("42P11", "cannot specify both SCROLL and NO SCROLL");
        }
        if (insensitive && asensitive) {
            throw new SqlStateException("42P11", "cannot specify both ASENSITIVE and INSENSITIVE");
        }
        String query = sql.substring(start.position()).strip();
        if (query.endsWith(";")) {
            query = query.substring(0, query.length() - 1).strip();
        }
        return new Declare(name, binary, insensitive, scroll ? Boolean.TRUE : noScroll ? Boolean.FALSE : null, hold,
                query);
    }

    /** FETCH / MOVE arguments (gram.y's fetch_args): a direction, perhaps, then FROM or IN, perhaps, and the name. */
    private static Fetch fetch(final String sql, final PgCommand.Cursor c, final boolean move) {
        Direction direction = Direction.FORWARD;
        long count = 1;
        final boolean named = isName(c.peek()) && isEnd(c.peekAt(1)); // FETCH name, without a direction
        if (named) {
            final String name = name(sql, c);
            return new Fetch(name, direction, count, move);
        }
        if (c.accept("NEXT")) {
            count = 1;
        } else if (c.accept("PRIOR")) {
            direction = Direction.BACKWARD;
        } else if (c.accept("FIRST")) {
            direction = Direction.ABSOLUTE;
        } else if (c.accept("LAST")) {
            direction = Direction.ABSOLUTE;
            count = -1;
        } else if (c.accept("ABSOLUTE")) {
            direction = Direction.ABSOLUTE;
            count = signedInteger(sql, c);
        } else if (c.accept("RELATIVE")) {
            direction = Direction.RELATIVE;
            count = signedInteger(sql, c);
        } else if (c.accept("ALL")) {
            count = ALL;
        } else if (c.accept("FORWARD") || c.accept("BACKWARD")) {
            direction = c.previous().is("FORWARD") ? Direction.FORWARD : Direction.BACKWARD;
            if (c.accept("ALL")) {
                count = ALL;
            } else if (startsInteger(c)) {
                count = signedInteger(sql, c);
            }
        } else if (startsInteger(c)) {
            count = signedInteger(sql, c);
        }
        if (!c.accept("FROM")) {
            c.accept("IN");
        }
        final String name = name(sql, c);
        c.end();
        return new Fetch(name, direction, count, move);
    }

    /** gram.y's SignedIconst: an integer that fits int4, with an optional sign. */
    private static long signedInteger(final String sql, final PgCommand.Cursor c) {
        final boolean negative = c.acceptSymbol("-");
        if (!negative) {
            c.acceptSymbol("+");
        }
        final Token t = c.peek();
        long value = -1;
        if (t.kind() == Kind.NUMBER && t.text().length() <= 10 && t.text().chars().allMatch(Character::isDigit)) {
            value = Long.parseLong(t.text());
        }
        if (value < 0 || value > Integer.MAX_VALUE) {
            throw syntaxError(sql, c); // not an int4 constant: another token to PostgreSQL's grammar
        }
        c.next();
        return negative ? -value : value;
    }

    private static boolean startsInteger(final PgCommand.Cursor c) {
        final Token t = c.peek();
        return t.kind() == Kind.NUMBER
                || t.kind() == Kind.SYMBOL && (t.text().equals("-") || t.text().equals("+"))
                && c.peekAt(1).kind() == Kind.NUMBER;
    }

    /** A cursor name: an identifier, folded to lower case unless quoted. */
    private static String name(final String sql, final PgCommand.Cursor c) {
        final Token t = c.peek();
        if (!isName(t)) {
            throw syntaxError(sql, c);
        }
        if (t.quoted() && t.text().isEmpty()) {
            throw new SqlStateException("42601", "zero-length delimited identifier at or near \"\"\"\"");
        }
        c.next();
        return t.name();
    }

    private static boolean isName(final Token t) {
        return t.kind() == Kind.WORD;
    }

    private static boolean isEnd(final Token t) {
        return t.kind() == Kind.END || t.kind() == Kind.SYMBOL && t.text().equals(";");
    }

    /** PostgreSQL's syntax error at the next token, as the statement spells it. */
    private static SqlStateException syntaxError(final String sql, final PgCommand.Cursor c) {
        final Token t = c.peek();
        if (t.kind() == Kind.END) {
            return new SqlStateException("42601", "syntax error at end of input");
        }
        final String at = t.kind() == Kind.WORD && !t.quoted()
                ? sql.substring(t.position(), t.position() + t.text().length()) : t.text();
        return new SqlStateException("42601", "syntax error at or near \"" + at + "\"");
    }
}
