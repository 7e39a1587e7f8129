package io.meldb.sql.catalog;

import io.meldb.sql.ErrorFields;
import io.meldb.sql.SqlStateException;
import io.meldb.txn.api.TxnSession;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs ALTER TABLE's actions ({@link AlterAction}) in the statement's transaction, in order, with PostgreSQL's
 * semantics and SQLSTATEs. No action rewrites the table's rows: columns are added, dropped and widened through
 * the table's {@link RowLayout}; the actions that must hold for the rows already there (ADD COLUMN ... NOT NULL,
 * SET NOT NULL, ADD CHECK) read them all. Every action reads and replaces the catalog version key, so a
 * SERIALIZABLE transaction that wrote under the old definition and commits later is aborted by meld; one under
 * SNAPSHOT isolation wrote rows in the old layout, which the new one still reads (docs/sql.md, "ALTER TABLE").
 */
public final class AlterTableDdl {
    private final CatalogStore store;

    public AlterTableDdl(final CatalogStore store) {
        this.store = store;
    }

    /**
     * Runs {@code alter}; the actions that are DDL statements of their own (ADD PRIMARY KEY, ADD UNIQUE, DROP
     * CONSTRAINT of a UNIQUE constraint) go to {@code other}.
     */
    public void alter(final TxnSession txn, final String db, final String schema, final Ddl.AlterTable alter,
                      final Consumer<Ddl> other) {
        store.ensureDatabase(txn, db);
        String table = alter.table().name();
        for (AlterAction action : alter.actions()) {
            if (action instanceof AlterAction.Other o) {
                other.accept(o.ddl());
                continue;
            }
            final Catalog catalog = store.read(txn);
            final TableDef def = catalog.schemaNames(db).contains(schema) ? catalog.table(db, schema, table) : null;
            if (def == null) {
                if (alter.ifExists()) {
                    return; // PostgreSQL: a notice, "relation does not exist, skipping"
                }
                CatalogStore.requireSchema(catalog, db, schema);
                if (catalog.view(db, schema, table) != null) {
                    throw new SqlStateException("42809", "\"" + table + "\" is a view: ALTER TABLE does not apply "
                            + "(use CREATE OR REPLACE VIEW)");
                }
                throw CatalogStore.unknownTable(table);
            }
            if (action instanceof AlterAction.DropConstraint d
                    && def.checks().stream().noneMatch(c -> c.name().equals(d.name()))) {
                other.accept(new Ddl.DropConstraint(new Ddl.TableName(schema, table), d.name(), false,
                        d.ifExists()));
                continue;
            }
            final TableDef changed = apply(txn, catalog, def, action);
            if (changed != def) {
                if (!changed.name().equals(def.name())) {
                    txn.delete(Keys.tableDefKey(db, schema, def.name()));
                    table = changed.name();
                }
                CatalogStore.putTable(txn, changed);
                CatalogStore.bumpVersion(txn);
            }
        }
    }

    private TableDef apply(final TxnSession txn, final Catalog catalog, final TableDef def, final AlterAction a) {
        if (a instanceof AlterAction.AddColumn add) {
            return addColumn(txn, catalog, def, add);
        }
        if (a instanceof AlterAction.DropColumn drop) {
            return DropColumn.drop(txn, catalog, def, drop);
        }
        if (a instanceof AlterAction.RenameColumn r) {
            return Renames.renameColumn(txn, catalog, def, r.from(), r.to());
        }
        if (a instanceof AlterAction.RenameTable r) {
            return Renames.renameTable(txn, catalog, def, r.to());
        }
        if (a instanceof AlterAction.RenameConstraint r) {
            return Renames.renameConstraint(def, r.from(), r.to());
        }
        if (a instanceof AlterAction.SetDefault d) {
            final int c = column(def, d.column());
            final ColumnDef col = def.columns().get(c);
            if (col.identity() != ColumnDef.Identity.NONE) {
                throw new SqlStateException("42601", "column \"" + col.name() + "\" of relation \"" + def.name()
                        + "\" is an identity column");
            }
            final ColumnDefault dflt = d.expression() == null ? null
                    : resolve(catalog, def, DdlParser.defaultFor(d.expression(), col.type()));
            return withColumn(def, c, col.withDefault(dflt));
        }
        if (a instanceof AlterAction.SetNotNull n) {
            final int c = column(def, n.column());
            final ColumnDef col = def.columns().get(c);
            if (!n.notNull()) {
                for (int k : def.primaryKey()) {
                    if (k == c) {
                        throw new SqlStateException("42P16", "column \"" + col.name() + "\" is in a primary key");
                    }
                }
                if (col.identity() != ColumnDef.Identity.NONE) {
                    throw new SqlStateException("42P16", "column \"" + col.name() + "\" of relation \"" + def.name()
                            + "\" is an identity column");
                }
                return withColumn(def, c, col.withNullable(true));
            }
            if (!col.nullable()) {
                return def;
            }
            new TableStore(def).forEachRow(txn, (Object[] row) -> {
                if (row[c] == null) {
                    throw containsNulls(def, col.name());
                }
            });
            return withColumn(def, c, col.withNullable(false));
        }
        if (a instanceof AlterAction.SetType t) {
            ForeignKeyColumns.requireUnused(catalog, def, column(def, t.column()), "TYPE");
            return TypeChange.apply(def, t);
        }
        if (a instanceof AlterAction.AddCheck check) {
            return addCheck(txn, def, check.name(), check.sql(), null, check.validate());
        }
        final AlterAction.DropConstraint d = (AlterAction.DropConstraint) a;
        final List<CheckDef> checks = new ArrayList<>(def.checks());
        checks.removeIf(c -> c.name().equals(d.name()));
        return new TableDef(def.db(), def.schema(), def.name(), def.id(), def.columns(), def.primaryKey(),
                def.indexes(), def.hiddenRowId(), checks, def.foreignKeys(), def.layout());
    }

    /**
     * ADD COLUMN: the new last column; rows already there read its default, fixed now (PostgreSQL's missing value:
     * a constant, or the clock read once), or NULL. A sequence or random-UUID default on a table with rows would need
     * a value per row: 0A000. NOT NULL without a default on a table with rows: 23502.
     */
    private static TableDef addColumn(final TxnSession txn, final Catalog catalog, final TableDef def,
                                      final AlterAction.AddColumn add) {
        final ColumnDef col = add.column();
        if (def.columnIndex(col.name()) >= 0) {
            if (add.ifNotExists()) {
                return def; // PostgreSQL: a notice, "column already exists, skipping"
            }
            throw new SqlStateException("42701", "column \"" + col.name() + "\" of relation \"" + def.name()
                    + "\" already exists");
        }
        final ColumnDefault dflt = col.dflt() == null ? null : resolve(catalog, def, col.dflt());
        final boolean hasRows = hasRows(txn, def);
        Object missing = null;
        if (dflt != null) {
            if (dflt.perRow()) {
                if (hasRows) {
                    throw new SqlStateException("0A000", "ALTER TABLE ... ADD COLUMN with a " + (dflt.kind()
                            == ColumnDefault.Kind.NEXTVAL ? "sequence" : "gen_random_uuid()") + " default on a "
                            + "table that has rows is not supported (each row would need a value of its own)");
                }
            } else {
                missing = col.type().coerce(dflt.evaluate(s -> {
                    throw new IllegalStateException();
                }));
            }
        }
        if (!col.nullable() && missing == null && hasRows) {
            throw containsNulls(def, col.name());
        }
        final List<ColumnDef> columns = new ArrayList<>(def.columns());
        columns.add(col.withDefault(dflt));
        final TableDef added = new TableDef(def.db(), def.schema(), def.name(), def.id(), columns, def.primaryKey(),
                def.indexes(), def.hiddenRowId(), def.checks(), def.foreignKeys(), def.layout().withColumnAdded(col.type(), missing));
        TableDef out = added;
        for (String[] check : add.checks()) {
            out = addCheck(txn, out, check[0], check[1], col.name(), true);
        }
        return out;
    }

    /**
     * ADD CHECK: compiled against the columns (an unknown column or function is refused now), named as
     * PostgreSQL names it when not named (42710 when the name is taken), and unless {@code validate} is false (NOT
     * VALID) checked against every row: 23514 naming it when one fails.
     */
    static TableDef addCheck(final TxnSession txn, final TableDef def, final String given, final String sql,
                             final String column, final boolean validate) {
        final CheckExpression expression = CheckExpression.of(sql, def.columns());
        String name = given;
        if (name == null) {
            final List<String> read = CheckExpression.columnsOf(sql);
            final String col = column != null ? column : read.size() == 1 ? read.get(0) : null;
            final String base = def.name() + (col == null ? "" : "_" + col) + "_check";
            name = base;
            for (int n = 1; constraintTaken(def, name); n++) {
                name = base + n;
            }
        } else if (constraintTaken(def, name)) {
            throw new SqlStateException("42710", "constraint \"" + name + "\" for relation \"" + def.name()
                    + "\" already exists");
        }
        final String checkName = name;
        if (validate) {
            new TableStore(def).forEachRow(txn, (Object[] row) -> {
                if (!expression.passes(row)) {
                    throw new SqlStateException("23514", "check constraint \"" + checkName + "\" of relation \""
                            + def.name() + "\" is violated by some row", null,
                            ErrorFields.constraint(def.schema(), def.name(), checkName), null);
                }
            });
        }
        final List<CheckDef> checks = new ArrayList<>(def.checks());
        checks.add(new CheckDef(name, sql));
        return new TableDef(def.db(), def.schema(), def.name(), def.id(), def.columns(), def.primaryKey(),
                def.indexes(), def.hiddenRowId(), checks, def.foreignKeys(), def.layout());
    }

    static boolean constraintTaken(final TableDef def, final String name) {
        return def.checks().stream().anyMatch(c -> c.name().equals(name)) || def.index(name) != null
                || def.foreignKeys().stream().anyMatch(f -> f.name().equals(name))
                || !def.hiddenRowId() && name.equals(def.name() + "_pkey");
    }

    static boolean keyColumn(final TableDef def, final int c) {
        for (int k : def.primaryKey()) {
            if (k == c) {
                return true;
            }
        }
        return false;
    }

    /** A nextval default's sequence, qualified and checked (42P01), as CREATE TABLE does; others unchanged. */
    private static ColumnDefault resolve(final Catalog catalog, final TableDef def, final ColumnDefault d) {
        if (d.kind() != ColumnDefault.Kind.NEXTVAL) {
            return d;
        }
        final String seqSchema = d.sequenceSchema() == null ? def.schema() : d.sequenceSchema();
        if (catalog.sequence(def.db(), seqSchema, d.sequence()) == null) {
            throw Sequences.unknown(d.sequence());
        }
        return ColumnDefault.nextval(seqSchema, d.sequence());
    }

    private static boolean hasRows(final TxnSession txn, final TableDef def) {
        final byte[] prefix = Keys.dataPrefix(def.id());
        return !txn.scan(prefix, true, io.meldb.sql.codec.KeyCodec.prefixEnd(prefix), false, false, 1).isEmpty();
    }

    static int column(final TableDef def, final String name) {
        final int c = def.columnIndex(name);
        if (c < 0) {
            throw new SqlStateException("42703", "column \"" + name + "\" of relation \"" + def.name()
                    + "\" does not exist");
        }
        return c;
    }

    static TableDef withColumn(final TableDef def, final int c, final ColumnDef col) {
        final List<ColumnDef> columns = new ArrayList<>(def.columns());
        columns.set(c, col);
        return new TableDef(def.db(), def.schema(), def.name(), def.id(), columns, def.primaryKey(), def.indexes(),
                def.hiddenRowId(), def.checks(), def.foreignKeys(), def.layout());
    }

    /** A column made NOT NULL (or part of a primary key) over rows that hold NULL in it, as PostgreSQL says it. */
    static SqlStateException containsNulls(final TableDef def, final String column) {
        return new SqlStateException("23502", "column \"" + column + "\" of relation \"" + def.name()
                + "\" contains null values", null, ErrorFields.column(def.schema(), def.name(), column), null);
    }
}
