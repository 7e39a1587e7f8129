package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.codec.ColumnType;

import java.util.ArrayList;
import java.util.List;

/**
 * The ALTER TABLE statements {@link DdlParser} reads through here: one or more actions separated by commas
 * ({@link AlterAction}): ADD [COLUMN], DROP [COLUMN], RENAME [COLUMN] / TO / CONSTRAINT, ALTER [COLUMN] SET/DROP
 * DEFAULT, SET/DROP NOT NULL, [SET DATA] TYPE, ADD [CONSTRAINT name] CHECK / UNIQUE / PRIMARY KEY / FOREIGN KEY, DROP CONSTRAINT;
 * and the options that may follow a UNIQUE constraint or index. Any other ALTER is refused with 0A000 naming it.
 */
final class AlterTableParser {
    private AlterTableParser() {
    }

    static Ddl alter(final DdlCursor c) {
        final Ddl owner = ownership(c);
        if (owner != null) {
            return owner;
        }
        if (!c.acceptWord("TABLE")) {
            throw new SqlStateException("0A000", "only ALTER TABLE is supported, not ALTER " + c.peek().text());
        }
        final boolean ifExists = c.ifExists();
        c.acceptWord("ONLY");
        final String[] name = c.qualifiedName();
        c.accept("*");
        final Ddl.TableName table = new Ddl.TableName(name[0], name[1]);
        if (c.acceptWord("RENAME")) {
            // RENAME is an action of its own in PostgreSQL: never in a list
            return new Ddl.AlterTable(table, ifExists, List.of(rename(c)));
        }
        final List<AlterAction> actions = new ArrayList<>();
        do {
            actions.add(action(c, table, ifExists));
        } while (c.accept(","));
        if (actions.size() == 1 && actions.get(0) instanceof AlterAction.Other o) {
            return o.ddl();
        }
        return new Ddl.AlterTable(table, ifExists, actions);
    }

    /**
     * {@code ALTER TABLE | VIEW | SEQUENCE | INDEX | SCHEMA name OWNER TO role} and {@code ALTER SEQUENCE name OWNED
     * BY table.column | NONE}, which pg_dump writes after every object: accepted without effect ({@link
     * Ddl.NoEffect}); null (the cursor where it was) for any other ALTER.
     */
    private static Ddl ownership(final DdlCursor c) {
        final int start = c.pos;
        final String kind = c.peek().text().toUpperCase(java.util.Locale.ROOT);
        if (!java.util.Set.of("TABLE", "VIEW", "SEQUENCE", "INDEX", "SCHEMA").contains(kind)) {
            return null;
        }
        c.pos++;
        c.ifExists();
        c.acceptWord("ONLY");
        c.qualifiedName();
        if (c.acceptWord("OWNER")) {
            c.expectWord("TO");
            c.identifier();
            return new Ddl.NoEffect("ALTER " + kind + " ... OWNER TO");
        }
        if (kind.equals("SEQUENCE") && c.acceptWord("OWNED")) {
            c.expectWord("BY");
            if (!c.acceptWord("NONE")) {
                c.dottedName(4); // [schema.]table.column
            }
            return new Ddl.NoEffect("ALTER SEQUENCE ... OWNED BY");
        }
        c.pos = start;
        return null;
    }

    private static AlterAction rename(final DdlCursor c) {
        if (c.acceptWord("TO")) {
            return new AlterAction.RenameTable(c.identifier());
        }
        if (c.acceptWord("CONSTRAINT")) {
            final String from = c.identifier();
            c.expectWord("TO");
            return new AlterAction.RenameConstraint(from, c.identifier());
        }
        c.acceptWord("COLUMN");
        final String from = c.identifier();
        c.expectWord("TO");
        return new AlterAction.RenameColumn(from, c.identifier());
    }

    private static AlterAction action(final DdlCursor c, final Ddl.TableName table, final boolean ifExists) {
        if (c.acceptWord("DROP")) {
            if (c.acceptWord("CONSTRAINT")) {
                final boolean constraintIfExists = c.ifExists();
                final String constraint = c.identifier();
                cascadeOrRestrict(c);
                return new AlterAction.DropConstraint(constraint, constraintIfExists);
            }
            c.acceptWord("COLUMN");
            final boolean columnIfExists = c.ifExists();
            final String column = c.identifier();
            return new AlterAction.DropColumn(column, columnIfExists, cascadeOrRestrict(c));
        }
        if (c.acceptWord("ALTER")) {
            c.acceptWord("COLUMN");
            final String column = c.identifier();
            if (c.acceptWord("SET")) {
                if (c.acceptWord("DEFAULT")) {
                    return new AlterAction.SetDefault(column, expressionText(c));
                }
                if (c.acceptWord("NOT")) {
                    c.expectWord("NULL");
                    return new AlterAction.SetNotNull(column, true);
                }
                if (!c.acceptWord("DATA")) {
                    throw new SqlStateException("0A000", "ALTER COLUMN ... SET " + c.peek().text() + " is not "
                            + "supported (only SET DEFAULT, SET NOT NULL and SET DATA TYPE)");
                }
                c.expectWord("TYPE");
                return setType(c, column);
            }
            if (c.acceptWord("DROP")) {
                if (c.acceptWord("DEFAULT")) {
                    return new AlterAction.SetDefault(column, null);
                }
                if (c.acceptWord("NOT")) {
                    c.expectWord("NULL");
                    return new AlterAction.SetNotNull(column, false);
                }
                throw new SqlStateException("0A000", "ALTER COLUMN ... DROP " + c.peek().text() + " is not supported");
            }
            if (c.acceptWord("TYPE")) {
                return setType(c, column);
            }
            throw new SqlStateException("0A000", "ALTER COLUMN ... " + c.peek().text() + " is not supported (only SET"
                    + "/DROP DEFAULT, SET/DROP NOT NULL and TYPE)");
        }
        if (!c.acceptWord("ADD")) {
            throw new SqlStateException("0A000", "ALTER TABLE ... " + c.peek().text() + " is not supported (only ADD, "
                    + "DROP, ALTER COLUMN and RENAME)");
        }
        String constraint = null;
        if (c.acceptWord("CONSTRAINT")) {
            constraint = c.identifier();
        }
        if (c.acceptWord("CHECK")) {
            final String sql = ColumnClauses.parenthesizedText(c);
            boolean validate = true;
            if (c.acceptWord("NOT")) {
                c.expectWord("VALID");
                validate = false;
            }
            if (c.acceptWord("NO")) {
                c.expectWord("INHERIT");
            }
            return new AlterAction.AddCheck(constraint, sql, validate);
        }
        if (c.acceptWord("UNIQUE")) {
            final List<String> columns = c.identifierList();
            uniqueOptions(c);
            return new AlterAction.Other(new Ddl.AddUnique(table, new Ddl.Unique(constraint, columns), ifExists));
        }
        if (c.acceptWord("FOREIGN")) {
            c.expectWord("KEY");
            return new AlterAction.Other(new Ddl.AddForeignKey(table, ForeignKeyParser.tableConstraint(c, constraint),
                    ifExists));
        }
        if (c.acceptWord("PRIMARY")) {
            c.expectWord("KEY");
            final List<String> columns = c.identifierList();
            if (c.peek().is("USING") || c.peek().is("WITH") || c.peek().is("DEFERRABLE")
                    || c.peek().is("INITIALLY")) {
                throw new SqlStateException("0A000", "PRIMARY KEY ... " + c.peek().text() + " is not supported");
            }
            return new AlterAction.Other(new Ddl.AddPrimaryKey(table, constraint, columns, ifExists));
        }
        if (constraint != null || c.peek().is("EXCLUDE")) {
            throw new SqlStateException("0A000", "ALTER TABLE ... ADD " + (constraint != null ? "CONSTRAINT ... " : "")
                    + c.peek().text() + " is not supported");
        }
        c.acceptWord("COLUMN");
        final boolean ifNotExists = c.ifNotExists();
        return addColumn(c, ifNotExists);
    }

    /** The column definition of ADD COLUMN: a type, then NOT NULL, NULL, DEFAULT, CHECK, CONSTRAINT name. */
    private static AlterAction addColumn(final DdlCursor c, final boolean ifNotExists) {
        final String column = c.identifier();
        if (ColumnClauses.serialType(c.peek()) != null) {
            throw new SqlStateException("0A000", "ALTER TABLE ... ADD COLUMN of type " + c.peek().text() + " is not "
                    + "supported (create a sequence and use DEFAULT nextval('...') on an empty table)");
        }
        final ColumnType type = ((DdlParser) c).type();
        boolean nullable = true;
        ColumnDefault dflt = null;
        String columnConstraint = null;
        final List<String[]> checks = new ArrayList<>();
        while (true) {
            if (c.acceptWord("NOT")) {
                c.expectWord("NULL");
                nullable = false;
            } else if (c.acceptWord("NULL")) {
                nullable = true;
            } else if (c.acceptWord("CONSTRAINT")) {
                columnConstraint = c.identifier();
                continue;
            } else if (c.acceptWord("DEFAULT")) {
                if (dflt != null) {
                    throw new SqlStateException("42601", "multiple default values specified for column \""
                            + column + "\"");
                }
                dflt = ColumnClauses.defaultExpression(c, type);
            } else if (c.acceptWord("CHECK")) {
                checks.add(new String[] {columnConstraint, ColumnClauses.parenthesizedText(c), column});
                if (c.acceptWord("NO")) {
                    c.expectWord("INHERIT");
                }
            } else if (c.peek().is("PRIMARY") || c.peek().is("UNIQUE") || c.peek().is("REFERENCES")
                    || c.peek().is("GENERATED")) {
                throw new SqlStateException("0A000", "ALTER TABLE ... ADD COLUMN ... " + c.peek().text() + " is not "
                        + "supported (add the column, then the constraint)");
            } else {
                break;
            }
            columnConstraint = null;
        }
        return new AlterAction.AddColumn(new ColumnDef(column, type, nullable, dflt, ColumnDef.Identity.NONE),
                ifNotExists, checks);
    }

    private static AlterAction setType(final DdlCursor c, final String column) {
        final ColumnType type = ((DdlParser) c).type();
        if (c.peek().is("USING") || c.peek().is("COLLATE")) {
            throw new SqlStateException("0A000", "ALTER COLUMN ... TYPE ... " + c.peek().text() + " is not supported "
                    + "(only widening type changes, which need no conversion)");
        }
        return new AlterAction.SetType(column, type);
    }

    /**
     * The text of the expression at the cursor, up to a comma outside parentheses or the statement's end: a SET
     * DEFAULT's expression is read once the column's type is known ({@link DdlParser#defaultFor}).
     */
    private static String expressionText(final DdlCursor c) {
        final int from = c.peek().position();
        int depth = 0;
        while (c.peek().kind() != SqlLexer.Kind.END) {
            final SqlLexer.Token t = c.peek();
            if (t.kind() == SqlLexer.Kind.SYMBOL) {
                if (t.text().equals("(")) {
                    depth++;
                } else if (t.text().equals(")")) {
                    depth--;
                } else if (depth == 0 && (t.text().equals(",") || t.text().equals(";"))) {
                    break;
                }
            }
            c.pos++;
        }
        final int to = c.peek().kind() == SqlLexer.Kind.END ? c.sql.length() : c.peek().position();
        final String text = c.sql.substring(from, to).trim();
        if (text.isEmpty()) {
            throw c.syntax("an expression");
        }
        return text;
    }

    /** An optional CASCADE or RESTRICT; whether it was CASCADE. */
    private static boolean cascadeOrRestrict(final DdlCursor c) {
        if (c.acceptWord("CASCADE")) {
            return true;
        }
        c.acceptWord("RESTRICT");
        return false;
    }

    /**
     * What may follow a UNIQUE constraint's columns or a unique index's: {@code NULLS DISTINCT} (the default, as
     * MeldDB always does) is read; {@code NULLS NOT DISTINCT}, {@code INCLUDE}, and deferrable constraints are
     * refused with 0A000 (MeldDB checks every row as it is written).
     */
    static void uniqueOptions(final DdlCursor c) {
        if (c.peek().is("INCLUDE") || c.peek().is("DEFERRABLE") || c.peek().is("INITIALLY")
                || c.peek().is("USING")) {
            throw new SqlStateException("0A000", "UNIQUE ... " + c.peek().text() + " is not supported");
        }
        if (c.acceptWord("NULLS")) {
            if (c.acceptWord("NOT")) {
                throw new SqlStateException("0A000", "UNIQUE NULLS NOT DISTINCT is not supported (NULLs never "
                        + "conflict in a MeldDB unique index)");
            }
            c.expectWord("DISTINCT");
        }
    }
}
