package io.meldb.sql.catalog;

/**
 * A {@code CHECK} constraint of a table: its name (given, or PostgreSQL's default {@code <table>_<column>_check})
 * and its condition as SQL text, which {@link CheckExpression} evaluates against every row an INSERT or UPDATE
 * writes (SQLState 23514 when it is false; NULL passes, as in SQL).
 */
public record CheckDef(String name, String sql) {
}
