package io.meldb.sql.pg;

import io.meldb.sql.catalog.SqlLexer;
import io.meldb.sql.catalog.SqlLexer.Kind;
import io.meldb.sql.catalog.SqlLexer.Token;
import io.meldb.sql.pg.catalog.PgCatalogView;

import java.util.List;
import java.util.Locale;

/**
 * PostgreSQL's functions about the session, which clients call at connect and which MeldDB's SQL engine does not
 * know: {@code version()}, {@code current_database()}, {@code current_catalog}, {@code current_schema[()]},
 * {@code current_user}, {@code session_user}, {@code current_role}, {@code pg_backend_pid()} (also with the
 * {@code pg_catalog.} prefix). Each is replaced by its value as a literal, so it works anywhere in a query; one
 * that is a whole select item also gets PostgreSQL's column name ({@code version}, {@code current_user}, ...).
 */
final class PgSessionFunctions {
    /** The MeldDB version clients see after PostgreSQL's in {@code version()}. */
    static final String MELDB_VERSION = io.meldb.sql.MeldVersion.VERSION;

    private PgSessionFunctions() {
    }

    /** What the functions answer for one session. */
    record Values(String user, String schema, int processId) {
    }

    /** {@code sql} with the session functions replaced by their values; {@code sql} itself when it has none. */
    static String rewrite(final String sql, final Values values) {
        final String lower = sql.toLowerCase(Locale.ROOT);
        if (!lower.contains("version") && !lower.contains("current_") && !lower.contains("session_user")
                && !lower.contains("pg_backend_pid")) {
            return sql;
        }
        final List<Token> tokens = SqlLexer.tokenize(sql);
        final StringBuilder out = new StringBuilder(sql.length() + 32);
        int copied = 0;
        for (int i = 0; i < tokens.size(); i++) {
            final Token t = tokens.get(i);
            if (t.kind() != Kind.WORD || t.quoted()) {
                continue;
            }
            final boolean call = isSymbol(tokens, i + 1, "(") && isSymbol(tokens, i + 2, ")");
            final String value = value(t.text().toLowerCase(Locale.ROOT), call, values);
            if (value == null || isSymbol(tokens, i - 1, ".") && !isQualifier(tokens, i - 2)) {
                continue;
            }
            int start = t.position();
            int before = i - 1;
            if (isSymbol(tokens, i - 1, ".")) {
                start = tokens.get(i - 2).position();
                before = i - 3;
            }
            final int last = call ? i + 2 : i;
            final int end = call ? tokens.get(last).position() + 1 : t.position() + t.text().length();
            out.append(sql, copied, start).append(value);
            if (wholeItem(tokens, before, last + 1)) {
                out.append(" AS \"").append(t.text().toLowerCase(Locale.ROOT)).append('"');
            }
            copied = end;
            i = last;
        }
        return copied == 0 ? sql : out.append(sql, copied, sql.length()).toString();
    }

    /** The literal a function stands for, or null when {@code name} is none of them. */
    private static String value(final String name, final boolean call, final Values v) {
        return switch (name) {
            case "version" -> call ? text("PostgreSQL " + PgSettings.SERVER_VERSION + " on MeldDB " + MELDB_VERSION
                    + ", a transactional SQL database on the JVM (Java " + Runtime.version().feature() + ")") : null;
            case "current_database" -> call ? text(PgCatalogView.DATABASE) : null;
            case "current_catalog" -> call ? null : text(PgCatalogView.DATABASE);
            case "current_schema" -> text(v.schema());
            case "current_user", "session_user", "current_role" -> call ? null : text(v.user());
            case "pg_backend_pid" -> call ? Integer.toString(v.processId()) : null;
            default -> null;
        };
    }

    private static String text(final String s) {
        return "CAST('" + s.replace("'", "''") + "' AS VARCHAR)";
    }

    /** Whether the tokens before {@code before} and from {@code after} make the value a whole select item. */
    private static boolean wholeItem(final List<Token> tokens, final int before, final int after) {
        final boolean starts = before >= 0 && (tokens.get(before).is("SELECT") || isSymbol(tokens, before, ","));
        final Token next = tokens.get(Math.min(after, tokens.size() - 1));
        final boolean ends = next.kind() == Kind.END || next.is("FROM") || isSymbol(tokens, after, ",")
                || isSymbol(tokens, after, ";");
        return starts && ends;
    }

    private static boolean isQualifier(final List<Token> tokens, final int i) {
        return i >= 0 && tokens.get(i).kind() == Kind.WORD && tokens.get(i).text().equalsIgnoreCase("pg_catalog");
    }

    private static boolean isSymbol(final List<Token> tokens, final int i, final String symbol) {
        return i >= 0 && i < tokens.size() && tokens.get(i).kind() == Kind.SYMBOL && tokens.get(i).text().equals(symbol);
    }
}
