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

    /**
     * {@code CREATE TABLE [IF NOT EXISTS] [schema.]name (columns..., [PRIMARY KEY (...)], [CHECK (...)]) [WITH
     * (storage parameters)]}; an empty {@code primaryKey} for a table without one (rows keyed by a hidden row id).
     * A column whose default {@link ColumnDefault#needsSequence()} (SERIAL, identity) gets a sequence of its own,
     * made with {@code sequenceOptions} at its position (null: the defaults of its type).
     */
    record CreateTable(String schema, String name, List<ColumnDef> columns, int[] primaryKey, boolean ifNotExists,
                       List<CheckDef> checks, List<SequenceOptions> sequenceOptions, List<Unique> uniques,
                       List<ForeignKey> foreignKeys) implements Ddl {
        public CreateTable {
            uniques = List.copyOf(uniques);
            foreignKeys = List.copyOf(foreignKeys);
        }

        /** A table without FOREIGN KEY constraints. */
        public CreateTable(final String schema, final String name, final List<ColumnDef> columns,
                           final int[] primaryKey, final boolean ifNotExists, final List<CheckDef> checks,
                           final List<SequenceOptions> sequenceOptions, final List<Unique> uniques) {
            this(schema, name, columns, primaryKey, ifNotExists, checks, sequenceOptions, uniques, List.of());
        }

        public CreateTable(final String schema, final String name, final List<ColumnDef> columns,
                           final int[] primaryKey, final boolean ifNotExists) {
            this(schema, name, columns, primaryKey, ifNotExists, List.of(), java.util.Collections.nCopies(
                    columns.size(), null), List.of());
        }
    }

    /**
     * A {@code UNIQUE} constraint as written: {@code name} null when not named ({@code <table>_<columns>_key}
     * then), {@code columns} by name.
     */
    record Unique(String name, List<String> columns) {
        public Unique {
            columns = List.copyOf(columns);
        }
    }

    /**
     * A {@code FOREIGN KEY} constraint as written: {@code name} null when not named ({@code <table>_<columns>_fkey}
     * then), {@code columns} by name, the parent table as written, {@code parentColumns} empty for the parent's
     * primary key.
     */
    record ForeignKey(String name, List<String> columns, TableName parent, List<String> parentColumns,
                      ForeignKeyDef.Action onDelete, ForeignKeyDef.Action onUpdate, ForeignKeyDef.Timing timing) {
        public ForeignKey {
            columns = List.copyOf(columns);
            parentColumns = List.copyOf(parentColumns);
        }
    }

    /** {@code ALTER TABLE [IF EXISTS] name ADD [CONSTRAINT constraint] FOREIGN KEY (columns) REFERENCES ...}. */
    record AddForeignKey(TableName table, ForeignKey foreignKey, boolean ifExists) implements Ddl {
    }

    /** {@code ALTER TABLE [IF EXISTS] name ADD [CONSTRAINT constraint] UNIQUE (columns)}. */
    record AddUnique(TableName table, Unique unique, boolean ifExists) implements Ddl {
    }

    /**
     * {@code ALTER TABLE [IF EXISTS] name DROP CONSTRAINT [IF EXISTS] constraint [CASCADE | RESTRICT]}: of a UNIQUE
     * or FOREIGN KEY constraint (the only constraints MeldDB can drop).
     */
    record DropConstraint(TableName table, String constraint, boolean ifExists, boolean constraintIfExists)
            implements Ddl {
    }

    /**
     * The options of {@code CREATE SEQUENCE} or of an identity column, each null when not given: {@code type} is
     * the AS type (its range bounds MINVALUE and MAXVALUE by default).
     */
    record SequenceOptions(io.meldb.sql.codec.SqlType type, Long start, Long increment, Long min, Long max,
                           Long cache) {
        public static final SequenceOptions NONE = new SequenceOptions(null, null, null, null, null, null);

        public SequenceOptions withType(final io.meldb.sql.codec.SqlType t) {
            return new SequenceOptions(t, start, increment, min, max, cache);
        }
    }

    /** {@code CREATE SEQUENCE [IF NOT EXISTS] [schema.]name [options]}. */
    record CreateSequence(String schema, String name, SequenceOptions options, boolean ifNotExists) implements Ddl {
    }

    /** {@code DROP SEQUENCE [IF EXISTS] name [, name ...] [CASCADE | RESTRICT]}. */
    record DropSequence(List<TableName> sequences, boolean ifExists) implements Ddl {
        public DropSequence {
            sequences = List.copyOf(sequences);
        }
    }

    /** A table's name as written: {@code schema} is null for an unqualified name. */
    record TableName(String schema, String name) {
    }

    /**
     * {@code DROP TABLE [IF EXISTS] name [, name ...] [CASCADE | RESTRICT]}; {@code cascade} drops the FOREIGN KEY
     * constraints of other tables that reference a dropped one (without it they refuse the drop).
     */
    record DropTable(List<TableName> tables, boolean ifExists, boolean cascade) implements Ddl {
        public DropTable {
            tables = List.copyOf(tables);
        }
    }

    /** {@code ANALYZE [VERBOSE] [name [(columns)] [, ...]]}: no names, every table of the database. */
    record Analyze(List<TableName> tables) implements Ddl {
        public Analyze {
            tables = List.copyOf(tables);
        }
    }

    /** {@code TRUNCATE [TABLE] [ONLY] name [, name ...] [RESTART | CONTINUE IDENTITY] [CASCADE | RESTRICT]}. */
    record Truncate(List<TableName> tables, boolean restartIdentity, boolean cascade) implements Ddl {
        public Truncate {
            tables = List.copyOf(tables);
        }

        public Truncate(final List<TableName> tables, final boolean restartIdentity) {
            this(tables, restartIdentity, false);
        }

        public Truncate(final List<TableName> tables) {
            this(tables, false);
        }
    }

    /**
     * {@code ALTER TABLE [IF EXISTS] [ONLY] name ADD [CONSTRAINT constraint] PRIMARY KEY (columns)};
     * {@code constraint} is null when not named.
     */
    record AddPrimaryKey(TableName table, String constraint, List<String> columns, boolean ifExists)
            implements Ddl {
        public AddPrimaryKey {
            columns = List.copyOf(columns);
        }
    }

    /** {@code CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON [schema.]table (columns...)}. */
    record CreateIndex(String schema, String name, String table, List<String> columns, boolean ifNotExists,
                       boolean unique) implements Ddl {
    }

    /** {@code DROP INDEX [IF EXISTS] [schema.]name}. */
    record DropIndex(String schema, String name, boolean ifExists) implements Ddl {
    }

    /**
     * {@code ALTER TABLE [IF EXISTS] name action [, action ...]}: the actions run in order in one transaction
     * ({@link AlterTableDdl}).
     */
    record AlterTable(TableName table, boolean ifExists, List<AlterAction> actions) implements Ddl {
        public AlterTable {
            actions = List.copyOf(actions);
        }
    }

    /** {@code CREATE TABLE [IF NOT EXISTS] name [(columns)] AS query [WITH [NO] DATA]}. */
    record CreateTableAs(String schema, String name, List<String> columnNames, String query, boolean withData,
                         boolean ifNotExists) implements Ddl {
        public CreateTableAs {
            columnNames = List.copyOf(columnNames);
        }
    }

    /** {@code CREATE [OR REPLACE] VIEW name [(columns)] AS query}. */
    record CreateView(String schema, String name, List<String> columnNames, String query, boolean orReplace)
            implements Ddl {
        public CreateView {
            columnNames = List.copyOf(columnNames);
        }
    }

    /** {@code DROP VIEW [IF EXISTS] name [, name ...] [CASCADE | RESTRICT]}. */
    record DropView(List<TableName> views, boolean ifExists, boolean cascade) implements Ddl {
        public DropView {
            views = List.copyOf(views);
        }
    }

    /**
     * {@code COMMENT ON TABLE | VIEW | COLUMN name IS 'text' | NULL}: {@code column} null for a relation,
     * {@code text} null to remove the comment.
     */
    record CommentOn(TableName relation, String column, String text) implements Ddl {
    }

    /**
     * A statement accepted with no effect on MeldDB: {@code ALTER ... OWNER TO} (no owners or privileges),
     * {@code ALTER SEQUENCE ... OWNED BY} (a sequence is not dropped with its column), as pg_dump writes them.
     */
    record NoEffect(String what) implements Ddl {
    }
}
