package io.meldb.sql.catalog;

import io.meldb.sql.codec.ColumnType;

import java.util.List;

/** One action of {@code ALTER TABLE}, as {@link AlterTableParser} reads it and {@link AlterTableDdl} runs it. */
public sealed interface AlterAction {
    /** {@code ADD [COLUMN] [IF NOT EXISTS] column type [constraints]}; {@code checks} as {name or null, sql}. */
    record AddColumn(ColumnDef column, boolean ifNotExists, List<String[]> checks) implements AlterAction {
    }

    /** {@code DROP [COLUMN] [IF EXISTS] column [CASCADE | RESTRICT]}. */
    record DropColumn(String column, boolean ifExists, boolean cascade) implements AlterAction {
    }

    /** {@code RENAME [COLUMN] from TO to}. */
    record RenameColumn(String from, String to) implements AlterAction {
    }

    /** {@code RENAME TO name}. */
    record RenameTable(String to) implements AlterAction {
    }

    /** {@code RENAME CONSTRAINT from TO to}. */
    record RenameConstraint(String from, String to) implements AlterAction {
    }

    /**
     * {@code ALTER [COLUMN] column SET DEFAULT expression | DROP DEFAULT} ({@code expression} null): the expression's
     * text, read for the column's type when the action runs.
     */
    record SetDefault(String column, String expression) implements AlterAction {
    }

    /** {@code ALTER [COLUMN] column SET NOT NULL | DROP NOT NULL}. */
    record SetNotNull(String column, boolean notNull) implements AlterAction {
    }

    /** {@code ALTER [COLUMN] column [SET DATA] TYPE type}. */
    record SetType(String column, ColumnType type) implements AlterAction {
    }

    /** {@code ADD [CONSTRAINT name] CHECK (condition) [NOT VALID]}; {@code name} null when not given. */
    record AddCheck(String name, String sql, boolean validate) implements AlterAction {
    }

    /** {@code DROP CONSTRAINT [IF EXISTS] name [CASCADE | RESTRICT]}. */
    record DropConstraint(String name, boolean ifExists) implements AlterAction {
    }

    /** An action run as a DDL statement of its own: ADD PRIMARY KEY, ADD UNIQUE. */
    record Other(Ddl ddl) implements AlterAction {
    }
}
