package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;

import java.util.List;

/**
 * Reads the {@code REFERENCES} clause of a FOREIGN KEY for {@link DdlParser} and {@link AlterTableParser}: the
 * parent table, its columns (none: its primary key), {@code MATCH SIMPLE}, {@code ON DELETE} / {@code ON UPDATE}
 * actions and {@code [NOT] DEFERRABLE [INITIALLY DEFERRED|IMMEDIATE]} (a deferred constraint's checks wait for
 * COMMIT: {@link DeferredConstraints}). {@code MATCH FULL}/{@code PARTIAL} are refused with 0A000 naming them.
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
        Boolean deferrable = null;
        Boolean initiallyDeferred = null;
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
                deferrable = clause(deferrable, "DEFERRABLE/NOT DEFERRABLE", false);
            } else if (c.acceptWord("DEFERRABLE")) {
                deferrable = clause(deferrable, "DEFERRABLE/NOT DEFERRABLE", true);
            } else if (c.acceptWord("INITIALLY")) {
                final boolean deferred = c.acceptWord("DEFERRED");
                if (!deferred) {
                    c.expectWord("IMMEDIATE");
                }
                initiallyDeferred = clause(initiallyDeferred, "INITIALLY IMMEDIATE/DEFERRED", deferred);
            } else {
                break;
            }
        }
        return new Ddl.ForeignKey(name, columns, new Ddl.TableName(parent[0], parent[1]), parentColumns,
                onDelete == null ? ForeignKeyDef.Action.NO_ACTION : onDelete,
                onUpdate == null ? ForeignKeyDef.Action.NO_ACTION : onUpdate, timing(deferrable, initiallyDeferred));
    }

    /** PostgreSQL's rules: INITIALLY DEFERRED implies DEFERRABLE and contradicts NOT DEFERRABLE (42601). */
    private static ForeignKeyDef.Timing timing(final Boolean deferrable, final Boolean initiallyDeferred) {
        if (Boolean.TRUE.equals(initiallyDeferred)) {
            if (Boolean.FALSE.equals(deferrable)) {
                throw new SqlStateException("42601", "constraint declared INITIALLY DEFERRED must be DEFERRABLE");
            }
            return ForeignKeyDef.Timing.INITIALLY_DEFERRED;
        }
        return Boolean.TRUE.equals(deferrable) ? ForeignKeyDef.Timing.INITIALLY_IMMEDIATE
                : ForeignKeyDef.Timing.NOT_DEFERRABLE;
    }

    /** PostgreSQL: "multiple DEFERRABLE/NOT DEFERRABLE clauses not allowed" (42601). */
    private static boolean clause(final Boolean before, final String what, final boolean value) {
        if (before != null) {
            throw new SqlStateException("42601", "multiple " + what + " clauses not allowed");
        }
        return value;
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
