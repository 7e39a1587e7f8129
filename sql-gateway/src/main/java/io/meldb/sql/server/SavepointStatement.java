package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.SqlLexer;
import io.meldb.sql.catalog.SqlLexer.Kind;
import io.meldb.sql.catalog.SqlLexer.Token;

import java.util.List;
import java.util.Locale;

/**
 * SAVEPOINT, ROLLBACK TO SAVEPOINT and RELEASE SAVEPOINT sent as SQL text over the JDBC front end (MeldDB's driver
 * sends them for {@code Connection.setSavepoint}, {@code rollback(Savepoint)} and {@code releaseSavepoint}), in
 * PostgreSQL's forms; {@link GatewayConnection} keeps the savepoints ({@link SavepointSession}). The PostgreSQL
 * front end parses the same forms with its other commands ({@code io.meldb.sql.pg.PgCommand}).
 */
public record SavepointStatement(Action action, String name) {
    /** What the statement does with its savepoint. */
    public enum Action { SET, ROLLBACK_TO, RELEASE }

    /**
     * The savepoint statement {@code sql} is, or null when it is none (a plain ROLLBACK included).
     *
     * @throws SqlStateException 42601 when it starts like one but does not parse
     */
    public static SavepointStatement parse(final String sql) {
        final String first = SqlLexer.firstKeyword(sql);
        if (!first.equals("SAVEPOINT") && !first.equals("RELEASE") && !first.equals("ROLLBACK")
                && !first.equals("ABORT")) {
            return null;
        }
        final List<Token> tokens = SqlLexer.tokenize(sql);
        int i = 1;
        final Action action;
        switch (first) {
            case "SAVEPOINT" -> action = Action.SET;
            case "RELEASE" -> {
                action = Action.RELEASE;
                i = skip(tokens, i, "SAVEPOINT");
            }
            default -> {
                i = skip(tokens, i, "WORK");
                i = skip(tokens, i, "TRANSACTION");
                if (!at(tokens, i).is("TO")) {
                    return null;
                }
                action = Action.ROLLBACK_TO;
                i = skip(tokens, i + 1, "SAVEPOINT");
            }
        }
        final Token name = at(tokens, i);
        if (name.kind() != Kind.WORD) {
            throw syntaxError(name);
        }
        final Token after = at(tokens, i + 1);
        if (after.kind() != Kind.END && !(after.kind() == Kind.SYMBOL && after.text().equals(";"))) {
            throw syntaxError(after);
        }
        return new SavepointStatement(action, name.quoted() ? name.text() : name.text().toLowerCase(Locale.ROOT));
    }

    /** Carries the statement out on {@code connection}'s transaction (errors as PostgreSQL's: 25P01, 3B001, ...). */
    public void apply(final GatewayConnection connection) {
        switch (action) {
            case SET -> connection.savepoint(name);
            case ROLLBACK_TO -> connection.rollbackToSavepoint(name);
            case RELEASE -> connection.releaseSavepoint(name);
        }
    }

    private static int skip(final List<Token> tokens, final int i, final String keyword) {
        return at(tokens, i).is(keyword) ? i + 1 : i;
    }

    private static Token at(final List<Token> tokens, final int i) {
        return i < tokens.size() ? tokens.get(i) : new Token(Kind.END, "", false, -1);
    }

    private static SqlStateException syntaxError(final Token t) {
        return new SqlStateException("42601", t.kind() == Kind.END ? "syntax error at end of input"
                : "syntax error at or near \"" + t.text() + "\"");
    }
}
