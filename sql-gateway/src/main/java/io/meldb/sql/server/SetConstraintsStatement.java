package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.DeferredConstraints;
import io.meldb.sql.catalog.SqlLexer;
import io.meldb.sql.catalog.SqlLexer.Kind;
import io.meldb.sql.catalog.SqlLexer.Token;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * PostgreSQL's {@code SET CONSTRAINTS {ALL | name [, ...]} {DEFERRED | IMMEDIATE}}, each name {@code [schema.]name}
 * (quoted names keep their case), run in the connection's transaction block ({@link GatewayConnection#inTransaction}). Both front ends parse it
 * here.
 */
public record SetConstraintsStatement(List<String[]> names, boolean deferred) {
    /**
     * The statement {@code sql} is, or null when it is not SET CONSTRAINTS.
     *
     * @throws SqlStateException 42601 when it starts like one but does not parse
     */
    public static SetConstraintsStatement parse(final String sql) {
        if (!SqlLexer.firstKeyword(sql).equals("SET")) {
            return null;
        }
        final List<Token> tokens = SqlLexer.tokenize(sql);
        if (!at(tokens, 1).is("CONSTRAINTS")) {
            return null;
        }
        int i = 2;
        List<String[]> names = null;
        if (at(tokens, i).is("ALL")) {
            i++;
        } else {
            names = new ArrayList<>();
            while (true) {
                final List<String> parts = new ArrayList<>();
                parts.add(name(at(tokens, i++)));
                while (at(tokens, i).kind() == Kind.SYMBOL && at(tokens, i).text().equals(".")) {
                    parts.add(name(at(tokens, i + 1)));
                    i += 2;
                }
                if (parts.size() > 2) {
                    throw new SqlStateException("42601", "improper qualified name (too many dotted names): "
                            + String.join(".", parts));
                }
                names.add(parts.toArray(new String[0]));
                if (at(tokens, i).kind() == Kind.SYMBOL && at(tokens, i).text().equals(",")) {
                    i++;
                } else {
                    break;
                }
            }
        }
        final Token mode = at(tokens, i);
        final boolean deferred;
        if (mode.is("DEFERRED")) {
            deferred = true;
        } else if (mode.is("IMMEDIATE")) {
            deferred = false;
        } else {
            throw syntaxError(mode);
        }
        final Token after = at(tokens, i + 1);
        if (after.kind() != Kind.END && !(after.kind() == Kind.SYMBOL && after.text().equals(";"))) {
            throw syntaxError(after);
        }
        return new SetConstraintsStatement(names == null ? null : List.copyOf(names), deferred);
    }

    /**
     * Carries the statement out on {@code connection}'s transaction block ({@code names} resolved in the connection's
     * schema): IMMEDIATE runs the pending deferred checks of those constraints now, and their failure (23503) fails
     * the transaction. A read-only transaction writes nothing to check.
     */
    public void apply(final GatewayConnection connection) {
        connection.inTransaction(txn -> {
            final DeferredConstraints state = DeferredConstraints.of(txn);
            if (names == null) {
                if (state != null) {
                    state.setAll(deferred, txn);
                }
                return;
            }
            final List<DeferredConstraints.Named> named = DeferredConstraints.resolve(connection.catalog(),
                    connection.database(), names, List.of(connection.sequences().schema()));
            if (state != null) {
                state.set(named, deferred, txn);
            }
        });
    }

    private static String name(final Token t) {
        if (t.kind() != Kind.WORD) {
            throw syntaxError(t);
        }
        return t.quoted() ? t.text() : t.text().toLowerCase(Locale.ROOT);
    }

    private static Token at(final List<Token> tokens, final int i) {
        return i < tokens.size() ? tokens.get(i) : new Token(Kind.END, "", false, -1);
    }

    private static SqlStateException syntaxError(final Token t) {
        return new SqlStateException("42601", t.kind() == Kind.END ? "syntax error at end of input"
                : "syntax error at or near \"" + t.text() + "\"");
    }
}
