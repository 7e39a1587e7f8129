package io.meldb.sql.server;

import io.meldb.sql.catalog.SqlLexer;

/** What a statement does to the transaction, decided from its first keyword before Calcite sees it. */
public enum StatementKind {
    /** SELECT, VALUES, WITH, EXPLAIN: a read-only snapshot is enough in autocommit mode. */
    READ,
    /** INSERT, UPDATE, DELETE, MERGE, UPSERT. */
    WRITE,
    /** CREATE / DROP / ALTER / TRUNCATE, run by the gateway itself ({@link io.meldb.sql.catalog.DdlParser}). */
    DDL,
    /** COMMIT or ROLLBACK sent as SQL text. */
    COMMIT,
    ROLLBACK;

    public static StatementKind of(final String sql) {
        return switch (SqlLexer.firstKeyword(sql)) {
            case "INSERT", "UPDATE", "DELETE", "MERGE", "UPSERT" -> WRITE;
            case "CREATE", "DROP", "ALTER", "TRUNCATE", "COMMENT", "ANALYZE", "ANALYSE" -> DDL;
            case "COMMIT" -> COMMIT;
            case "ROLLBACK" -> ROLLBACK;
            case "EXPLAIN" -> {
                final String analyzed = ExplainAnalyze.statement(sql); // it runs the statement: its kind
                yield analyzed == null ? READ : of(analyzed);
            }
            default -> READ;
        };
    }
}
