package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.SqlLexer;
import io.meldb.sql.catalog.SqlLexer.Kind;
import io.meldb.sql.catalog.SqlLexer.Token;

import java.util.List;
import java.util.Locale;

/**
 * The statements the PostgreSQL front end carries out itself rather than hand to the SQL engine: transaction
 * control (BEGIN, START TRANSACTION, COMMIT, END, ROLLBACK, ABORT, SET TRANSACTION), session parameters (SET,
 * SHOW, RESET, DISCARD), statements that have no meaning for MeldDB and are accepted as they are (VACUUM,
 * CHECKPOINT, DEALLOCATE; ANALYZE is the SQL engine's, see TableStatistics), savepoints, SQL cursors (DECLARE,
 * FETCH, MOVE, CLOSE: {@link PgCursorCommand}), and ones it refuses with 0A000 (LISTEN/NOTIFY, SQL-level PREPARE,
 * LOCK TABLE).
 */
public sealed interface PgCommand {
    /** BEGIN / START TRANSACTION with optional characteristics (null = the session's). */
    record Begin(String tag, String isolation, Boolean readOnly) implements PgCommand {
    }

    record Commit() implements PgCommand {
    }

    record Rollback() implements PgCommand {
    }

    /** SAVEPOINT name. */
    record Savepoint(String name) implements PgCommand {
    }

    /** ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT] name. */
    record RollbackToSavepoint(String name) implements PgCommand {
    }

    /** RELEASE [SAVEPOINT] name. */
    record ReleaseSavepoint(String name) implements PgCommand {
    }

    /** SET CONSTRAINTS {ALL | names} {DEFERRED | IMMEDIATE}. */
    record SetConstraints(io.meldb.sql.server.SetConstraintsStatement statement) implements PgCommand {
    }

    /** SET TRANSACTION (this transaction) or SET SESSION CHARACTERISTICS AS TRANSACTION (the session's). */
    record SetTransaction(boolean session, String isolation, Boolean readOnly) implements PgCommand {
    }

    /** SET [SESSION | LOCAL] name TO value; {@code local}: SET LOCAL, for the rest of the transaction only. */
    record Set(String name, String value, boolean local) implements PgCommand {
    }

    /**
     * SET ROLE name, SET ROLE NONE and RESET ROLE ({@code role} null). MeldDB has no roles or privileges: the role
     * can only be the session's user, which makes the statement a no-op (what tools such as Flyway send to restore
     * the role they found).
     */
    record SetRole(String role) implements PgCommand {
    }

    /** SHOW name; {@code name} "all" shows every parameter. */
    record Show(String name) implements PgCommand {
    }

    /** RESET name; {@code name} null for RESET ALL / DISCARD ALL. */
    record Reset(String name, String tag) implements PgCommand {
    }

    /** A statement accepted without effect, answered with its command tag. */
    record NoOp(String tag) implements PgCommand {
    }

    /** DECLARE, FETCH, MOVE or CLOSE: a SQL cursor's statement ({@link PgCursorCommands} runs it). */
    record OnCursor(PgCursorCommand command) implements PgCommand {
    }

    /** Answers the command tag, or SQLState 0A000 for {@link Unsupported}. */
    record Unsupported(String feature) implements PgCommand {
    }

    /** The command of {@code sql}, or null when the SQL engine runs it. */
    static PgCommand parse(final String sql) {
        final String first = SqlLexer.firstKeyword(sql);
        switch (first) {
            case "DECLARE", "FETCH", "MOVE", "CLOSE":
                return new OnCursor(PgCursorCommand.parse(sql, first));
            case "BEGIN", "START", "COMMIT", "END", "ROLLBACK", "ABORT", "SET", "SHOW", "RESET", "DISCARD",
                 "VACUUM", "CHECKPOINT", "DEALLOCATE", "SAVEPOINT", "RELEASE", "LISTEN",
                 "UNLISTEN", "NOTIFY", "PREPARE", "LOCK", "CLUSTER", "REINDEX":
                break;
            default:
                return null;
        }
        final List<Token> t = SqlLexer.tokenize(sql);
        final Cursor c = new Cursor(t);
        c.next(); // the first keyword
        return switch (first) {
            case "BEGIN" -> {
                c.accept("WORK", "TRANSACTION");
                yield begin("BEGIN", c);
            }
            case "START" -> {
                c.expect("TRANSACTION");
                yield begin("START TRANSACTION", c);
            }
            case "COMMIT", "END" -> {
                c.accept("WORK", "TRANSACTION");
                if (c.accept("AND")) {
                    throw new SqlStateException("0A000", "COMMIT AND CHAIN is not supported");
                }
                c.end();
                yield new Commit();
            }
            case "ROLLBACK", "ABORT" -> {
                final io.meldb.sql.server.SavepointStatement to = io.meldb.sql.server.SavepointStatement.parse(sql);
                if (to != null) {
                    yield new RollbackToSavepoint(to.name());
                }
                c.accept("WORK", "TRANSACTION");
                c.end();
                yield new Rollback();
            }
            case "SET" -> {
                final io.meldb.sql.server.SetConstraintsStatement constraints =
                        io.meldb.sql.server.SetConstraintsStatement.parse(sql);
                yield constraints != null ? new SetConstraints(constraints) : set(c);
            }
            case "SHOW" -> {
                if (c.accept("TRANSACTION")) {
                    c.expect("ISOLATION");
                    c.expect("LEVEL");
                    c.end();
                    yield new Show("transaction_isolation");
                }
                if (c.accept("TIME")) {
                    c.expect("ZONE");
                    c.end();
                    yield new Show("TimeZone");
                }
                final String name = c.name();
                c.end();
                yield new Show(name);
            }
            case "RESET" -> {
                if (c.accept("ROLE")) {
                    c.end();
                    yield new SetRole(null);
                }
                if (c.accept("ALL")) {
                    c.end();
                    yield new Reset(null, "RESET");
                }
                final String name = c.name();
                c.end();
                yield new Reset(name, "RESET");
            }
            case "DISCARD" -> new Reset(null, "DISCARD ALL");
            case "VACUUM" -> new NoOp("VACUUM");
            case "CHECKPOINT" -> new NoOp("CHECKPOINT");
            case "DEALLOCATE" -> new NoOp("DEALLOCATE");
            // the forms the JDBC front end runs too, parsed in one place
            case "SAVEPOINT" -> new Savepoint(io.meldb.sql.server.SavepointStatement.parse(sql).name());
            case "RELEASE" -> new ReleaseSavepoint(io.meldb.sql.server.SavepointStatement.parse(sql).name());
            case "LISTEN", "UNLISTEN", "NOTIFY" -> new Unsupported(first + " (asynchronous notifications)");
            case "PREPARE" -> new Unsupported("PREPARE as SQL (use the extended query protocol's Parse)");
            case "LOCK" -> new Unsupported("LOCK TABLE (MeldDB's transactions take no locks; SERIALIZABLE "
                    + "isolation orders them)");
            case "CLUSTER", "REINDEX" -> new NoOp(first);
            default -> null;
        };
    }

    private static PgCommand set(final Cursor c) {
        if (c.accept("TRANSACTION")) {
            return characteristics(false, c);
        }
        boolean local = false;
        if (c.accept("SESSION")) {
            if (c.accept("CHARACTERISTICS")) {
                c.expect("AS");
                c.expect("TRANSACTION");
                return characteristics(true, c);
            }
        } else {
            local = c.accept("LOCAL");
        }
        if (c.accept("TIME")) {
            c.expect("ZONE");
            return new Set("TimeZone", c.value(), local);
        }
        if (c.accept("NAMES")) {
            return new Set("client_encoding", c.value(), local);
        }
        if (c.accept("ROLE")) {
            return new SetRole(c.accept("NONE") ? null : c.value());
        }
        if (c.accept("SCHEMA")) {
            return new Set("search_path", c.value(), local);
        }
        final String name = c.name();
        if (!c.accept("TO") && !c.acceptSymbol("=")) {
            throw new SqlStateException("42601", "syntax error in SET: expected TO or = after " + name);
        }
        return new Set(name, c.value(), local);
    }

    private static Begin begin(final String tag, final Cursor c) {
        final SetTransaction s = characteristics(false, c);
        return new Begin(tag, s.isolation(), s.readOnly());
    }

    /** ISOLATION LEVEL ..., READ ONLY | READ WRITE, [NOT] DEFERRABLE, in any order, commas allowed. */
    private static SetTransaction characteristics(final boolean session, final Cursor c) {
        String isolation = null;
        Boolean readOnly = null;
        while (!c.atEnd()) {
            if (c.acceptSymbol(",")) {
                continue;
            }
            if (c.accept("ISOLATION")) {
                c.expect("LEVEL");
                if (c.accept("SERIALIZABLE")) {
                    isolation = "serializable";
                } else if (c.accept("REPEATABLE")) {
                    c.expect("READ");
                    isolation = "repeatable read";
                } else if (c.accept("READ")) {
                    isolation = c.accept("COMMITTED") ? "read committed" : expectUncommitted(c);
                } else {
                    throw new SqlStateException("42601", "syntax error: unknown isolation level");
                }
            } else if (c.accept("READ")) {
                if (c.accept("ONLY")) {
                    readOnly = true;
                } else {
                    c.expect("WRITE");
                    readOnly = false;
                }
            } else if (c.accept("NOT")) {
                c.expect("DEFERRABLE");
            } else if (c.accept("DEFERRABLE")) {
                // a serializable read-only transaction never waits in MeldDB: deferrable changes nothing
            } else {
                throw new SqlStateException("42601", "syntax error at or near \"" + c.peekText() + "\"");
            }
        }
        return new SetTransaction(session, isolation, readOnly);
    }

    private static String expectUncommitted(final Cursor c) {
        c.expect("UNCOMMITTED");
        return "read uncommitted";
    }

    /** Walks the tokens of one command. */
    final class Cursor {
        private final List<Token> tokens;
        private int at;

        Cursor(final List<Token> tokens) {
            this.tokens = tokens;
        }

        Token next() {
            return tokens.get(at++);
        }

        Token peek() {
            return tokens.get(at);
        }

        /** The token {@code ahead} places after the next one (the END token once past the end). */
        Token peekAt(final int ahead) {
            return tokens.get(Math.min(at + ahead, tokens.size() - 1));
        }

        /** The token the last {@link #next} or accept took. */
        Token previous() {
            return tokens.get(at - 1);
        }

        boolean atEnd() {
            final Token t = tokens.get(at);
            return t.kind() == Kind.END || (t.kind() == Kind.SYMBOL && t.text().equals(";"));
        }

        boolean peekIs(final String keyword) {
            return tokens.get(at).is(keyword);
        }

        String peekText() {
            return tokens.get(at).text();
        }

        boolean accept(final String... keywords) {
            for (String k : keywords) {
                if (tokens.get(at).is(k)) {
                    at++;
                    return true;
                }
            }
            return false;
        }

        boolean acceptSymbol(final String symbol) {
            final Token t = tokens.get(at);
            if (t.kind() == Kind.SYMBOL && t.text().equals(symbol)) {
                at++;
                return true;
            }
            return false;
        }

        void expect(final String keyword) {
            if (!accept(keyword)) {
                throw new SqlStateException("42601", "syntax error at or near \"" + peekText() + "\": expected "
                        + keyword);
            }
        }

        void end() {
            if (!atEnd()) {
                throw new SqlStateException("42601", "syntax error at or near \"" + peekText() + "\"");
            }
        }

        /** A parameter name, possibly qualified ("a.b"); unquoted names in lower case. */
        String name() {
            final Token t = next();
            if (t.kind() != Kind.WORD) {
                throw new SqlStateException("42601", "syntax error at or near \"" + t.text() + "\"");
            }
            String name = t.quoted() ? t.text() : t.text().toLowerCase(Locale.ROOT);
            while (acceptSymbol(".")) {
                final Token part = next();
                name += "." + (part.quoted() ? part.text() : part.text().toLowerCase(Locale.ROOT));
            }
            return name;
        }

        /** The value of SET: words, numbers and strings up to the end, comma-separated lists kept as text. */
        String value() {
            final StringBuilder b = new StringBuilder();
            final boolean given = !atEnd(); // '' is a value (pg_dump: SET default_tablespace = '')
            while (!atEnd()) {
                final Token t = next();
                if (t.kind() == Kind.SYMBOL && t.text().equals(",")) {
                    b.append(", ");
                } else if (t.kind() == Kind.SYMBOL && t.text().equals("-")) {
                    b.append('-');
                } else if (t.kind() == Kind.WORD && !t.quoted()) {
                    b.append(t.text().toLowerCase(Locale.ROOT));
                } else {
                    b.append(t.text());
                }
            }
            final String v = b.toString();
            if (!given) {
                throw new SqlStateException("42601", "syntax error: SET needs a value");
            }
            return v.equalsIgnoreCase("default") ? null : v;
        }
    }
}
