package io.meldb.sql.catalog;

import java.util.List;

/** The DDL statements MeldDB runs itself (outside Calcite), as parsed by {@link DdlParser}. */
public sealed interface Ddl {
    /** {@code CREATE SCHEMA [IF NOT EXISTS] name}. */
    record CreateSchema(String name, boolean ifNotExists) implements Ddl {
    }

    /** {@code DROP SCHEMA [IF EXISTS] name [RESTRICT | CASCADE]}. */
    record DropSchema(String name, boolean ifExists, boolean cascade) implements Ddl {
    }

    /** {@code CREATE TABLE [IF NOT EXISTS] [schema.]name (columns..., PRIMARY KEY (...))}. */
    record CreateTable(String schema, String name, List<ColumnDef> columns, int[] primaryKey, boolean ifNotExists)
            implements Ddl {
    }

    /** {@code DROP TABLE [IF EXISTS] [schema.]name}; {@code schema} is null for an unqualified name. */
    record DropTable(String schema, String name, boolean ifExists) implements Ddl {
    }

    /** {@code CREATE INDEX [IF NOT EXISTS] name ON [schema.]table (columns...)}. */
    record CreateIndex(String schema, String name, String table, List<String> columns, boolean ifNotExists)
            implements Ddl {
    }

    /** {@code DROP INDEX [IF EXISTS] [schema.]name}. */
    record DropIndex(String schema, String name, boolean ifExists) implements Ddl {
    }
}
