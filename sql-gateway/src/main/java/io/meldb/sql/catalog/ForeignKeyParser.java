package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;

import java.util.List;

/**
 * Reads the {@code REFERENCES} clause of a FOREIGN KEY for {@link DdlParser} and {@link AlterTableParser}: the
 * parent table, its columns (none: its primary key), {@code MATCH SIMPLE}, {@code ON DELETE} / {@code ON UPDATE}
 * actions and {@code NOT DEFERRABLE}. {@code MATCH FULL}/{@code PARTIAL} and deferrable constraints are refused
 * with 0A000 naming them: MeldDB checks MATCH SIMPLE at every row it writes.
 */
final class ForeignKeyParser {
    private ForeignKeyParser() {
    }

    /** After {@code FOREIGN KEY}: {@code (columns) REFERENCES ...}. */
    static Ddl.ForeignKey tableConstraint(final DdlCursor c, final String name) {
        final List<String> columns = c.identifierList();
        c.expectWord("REFERENCES");
        return references(c, name, columns);
    }

    /** After {@code REFERENCES} (table constraint, or a column's own with {@code columns} its name). */
    static Ddl.ForeignKey references(final DdlCursor c, final String name, final List<String> columns) {
        final String[] parent = c.qualifiedName();
        final List<String> parentColumns = opensList(c) ? c.identifierList() : List.of();
        ForeignKeyDef.Action onDelete = null;
        ForeignKeyDef.Action onUpdate = null;
        while (true) {
            if (c.acceptWord("MATCH")) {
                if (!c.acceptWord("SIMPLE")) {
                    throw new SqlStateException("0A000", "FOREIGN KEY ... MATCH " + c.peek().text() + " is not "
                            + "supported (only MATCH SIMPLE)");
                }
            } else if (c.acceptWord("ON")) {
                if (c.acceptWord("DELETE")) {
                    onDelete = once(onDelete, "ON DELETE", action(c));
                } else {
                    c.expectWord("UPDATE");
                    onUpdate = once(onUpdate, "ON UPDATE", action(c));
                }
            } else if (c.peek().is("NOT") && c.tokens.size() > c.pos + 1
                    && c.tokens.get(c.pos + 1).is("DEFERRABLE")) {
                c.pos += 2;
            } else if (c.peek().is("DEFERRABLE") || c.peek().is("INITIALLY")) {
                throw new SqlStateException("0A000", "deferrable FOREIGN KEY constraints are not supported (MeldDB "
                        + "checks every row as it is written)");
            } else {
                break;
            }
        }
        return new Ddl.ForeignKey(name, columns, new Ddl.TableName(parent[0], parent[1]), parentColumns,
                onDelete == null ? ForeignKeyDef.Action.NO_ACTION : onDelete,
                onUpdate == null ? ForeignKeyDef.Action.NO_ACTION : onUpdate);
    }

    private static ForeignKeyDef.Action once(final ForeignKeyDef.Action before, final String clause,
                                             final ForeignKeyDef.Action action) {
        if (before != null) {
            throw new SqlStateException("42601", clause + " given twice");
        }
        return action;
    }

    private static ForeignKeyDef.Action action(final DdlCursor c) {
        if (c.acceptWord("CASCADE")) {
            return ForeignKeyDef.Action.CASCADE;
        }
        if (c.acceptWord("RESTRICT")) {
            return ForeignKeyDef.Action.RESTRICT;
        }
        if (c.acceptWord("NO")) {
            c.expectWord("ACTION");
            return ForeignKeyDef.Action.NO_ACTION;
        }
        c.expectWord("SET");
        if (c.acceptWord("NULL")) {
            refuseColumnList(c, "SET NULL");
            return ForeignKeyDef.Action.SET_NULL;
        }
        c.expectWord("DEFAULT");
        throw new SqlStateException("0A000", "FOREIGN KEY ... SET DEFAULT is not supported (use SET NULL, CASCADE, "
                + "RESTRICT or NO ACTION)");
    }

    private static boolean opensList(final DdlCursor c) {
        return c.peek().kind() == SqlLexer.Kind.SYMBOL && c.peek().text().equals("(");
    }

    private static void refuseColumnList(final DdlCursor c, final String action) {
        if (opensList(c)) {
            throw new SqlStateException("0A000", "FOREIGN KEY ... " + action + " (columns) is not supported");
        }
    }
}
