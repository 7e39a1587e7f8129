package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.SqlLexer;

/**
 * Statements that users and tools send and MeldDB does not run, refused by both front ends with SQLSTATE 0A000 and
 * a message naming the feature, before Calcite's parser would answer them with a bare syntax error (42601) or an
 * internal one. (The PostgreSQL front end answers some of them itself first, and runs SQL cursors:
 * {@code io.meldb.sql.pg.PgCommand}.)
 */
public final class UnsupportedStatements {
    private UnsupportedStatements() {
    }

    /** Throws 0A000 when {@code sql} is a statement MeldDB does not support; returns otherwise. */
    public static void refuse(final String sql) {
        final String first = SqlLexer.firstKeyword(sql);
        if (first.equals("MERGE")) {
            MergeForms.refuseUnsupported(sql);
            return;
        }
        final String feature = switch (first) {
            case "LOCK" -> "LOCK TABLE (MeldDB's transactions take no locks: meld decides conflicts at commit; "
                    + "SERIALIZABLE isolation orders transactions, SELECT ... FOR UPDATE marks rows as written)";
            case "LISTEN", "UNLISTEN", "NOTIFY" -> first + " (asynchronous notifications)";
            case "DO" -> "DO (anonymous code blocks: MeldDB has no procedural language)";
            case "CALL" -> "CALL (MeldDB has no stored procedures)";
            case "GRANT", "REVOKE", "REASSIGN" -> first + " (MeldDB has no privileges beyond its users file)";
            case "SECURITY" -> "SECURITY LABEL";
            case "REFRESH" -> "REFRESH MATERIALIZED VIEW (MeldDB has no materialized views)";
            // the PostgreSQL front end runs them (io.meldb.sql.pg.PgCursorCommands); Avatica has no way to carry them
            case "DECLARE", "FETCH", "MOVE", "CLOSE" -> first + " (SQL cursors) over MeldDB's JDBC front end (use the "
                    + "JDBC fetch size, Statement.setFetchSize, or the PostgreSQL protocol, which runs SQL cursors)";
            case "PREPARE", "EXECUTE", "DEALLOCATE" -> first + " as SQL (prepare through the protocol or JDBC)";
            case "IMPORT" -> "IMPORT FOREIGN SCHEMA (MeldDB has no foreign data wrappers)";
            case "LOAD" -> "LOAD (MeldDB has no extensions)";
            case "UPSERT" -> "UPSERT (write INSERT ... ON CONFLICT ... DO UPDATE)";
            case "TABLE" -> "TABLE name (write SELECT * FROM name)";
            default -> null;
        };
        if (feature != null) {
            throw new SqlStateException("0A000", feature + " is not supported");
        }
        if ((first.equals("SELECT") || first.equals("WITH")) && distinctOn(sql)) {
            throw new SqlStateException("0A000", "SELECT DISTINCT ON is not supported (keep each group's first row "
                    + "with ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...) = 1 in a subquery)");
        }
    }

    /** Whether a query says DISTINCT ON (PostgreSQL's), which Calcite's parser answers with a bare 42601. */
    private static boolean distinctOn(final String sql) {
        if (!sql.toUpperCase(java.util.Locale.ROOT).contains("DISTINCT")) {
            return false;
        }
        final java.util.List<SqlLexer.Token> tokens = SqlLexer.tokenize(sql);
        for (int i = 0; i + 1 < tokens.size(); i++) {
            if (tokens.get(i).is("DISTINCT") && tokens.get(i + 1).is("ON")) {
                return true;
            }
        }
        return false;
    }
}
