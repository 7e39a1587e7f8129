package io.meldb.sql.server;

/**
 * A column of a statement's result as front ends describe it: its label, JDBC type ({@link java.sql.Types}),
 * precision (length of a character type) and scale.
 */
public record ResultColumn(String name, int jdbcType, int precision, int scale) {
}
