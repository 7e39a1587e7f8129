package io.meldb.sql.catalog;

import java.util.List;

/** The DDL statements MeldDB runs itself (outside Calcite), as parsed by {@link DdlParser}. */
public sealed interface Ddl {
    /** {@code CREATE TABLE [IF NOT EXISTS] name (columns..., PRIMARY KEY (...))}. */
    record CreateTable(String schema, String name, List<ColumnDef> columns, int[] primaryKey, boolean ifNotExists)
            implements Ddl {
    }

    /** {@code DROP TABLE [IF EXISTS] name}. */
    record DropTable(String schema, String name, boolean ifExists) implements Ddl {
    }

    /** {@code CREATE INDEX [IF NOT EXISTS] name ON table (columns...)}. */
    record CreateIndex(String schema, String name, String table, List<String> columns, boolean ifNotExists)
            implements Ddl {
    }

    /** {@code DROP INDEX [IF EXISTS] name}. */
    record DropIndex(String schema, String name, boolean ifExists) implements Ddl {
    }
}
