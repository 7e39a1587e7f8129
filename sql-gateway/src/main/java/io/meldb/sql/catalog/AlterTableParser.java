package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;

import java.util.List;

/**
 * The ALTER TABLE statements {@link DdlParser} reads through here: {@code ADD [CONSTRAINT name] PRIMARY KEY (...)},
 * {@code ADD [CONSTRAINT name] UNIQUE (...)}, {@code ADD [CONSTRAINT name] FOREIGN KEY (...) REFERENCES ...} and {@code DROP CONSTRAINT [IF EXISTS] name}; and the options that may
 * follow a UNIQUE constraint or index. Any other ALTER is refused with 0A000 naming it.
 */
final class AlterTableParser {
    private AlterTableParser() {
    }

    static Ddl alter(final DdlCursor c) {
        if (!c.acceptWord("TABLE")) {
            throw new SqlStateException("0A000", "only ALTER TABLE is supported, not ALTER " + c.peek().text());
        }
        final boolean ifExists = c.ifExists();
        c.acceptWord("ONLY");
        final String[] name = c.qualifiedName();
        c.accept("*");
        final Ddl.TableName table = new Ddl.TableName(name[0], name[1]);
        if (c.acceptWord("DROP")) {
            if (!c.acceptWord("CONSTRAINT")) {
                throw new SqlStateException("0A000", "only ALTER TABLE ... DROP CONSTRAINT is supported, not DROP "
                        + c.peek().text());
            }
            final boolean constraintIfExists = c.ifExists();
            final String constraint = c.identifier();
            if (!c.acceptWord("RESTRICT")) {
                c.acceptWord("CASCADE"); // MeldDB refuses to drop a unique constraint a foreign key references
            }
            return new Ddl.DropConstraint(table, constraint, ifExists, constraintIfExists);
        }
        if (!c.acceptWord("ADD")) {
            throw new SqlStateException("0A000", "only ALTER TABLE ... ADD PRIMARY KEY, ADD UNIQUE and DROP "
                    + "CONSTRAINT are supported, not ALTER TABLE ... " + c.peek().text());
        }
        String constraint = null;
        if (c.acceptWord("CONSTRAINT")) {
            constraint = c.identifier();
        }
        if (c.acceptWord("UNIQUE")) {
            final List<String> columns = c.identifierList();
            uniqueOptions(c);
            return new Ddl.AddUnique(table, new Ddl.Unique(constraint, columns), ifExists);
        }
        if (c.acceptWord("FOREIGN")) {
            c.expectWord("KEY");
            return new Ddl.AddForeignKey(table, ForeignKeyParser.tableConstraint(c, constraint), ifExists);
        }
        if (!c.acceptWord("PRIMARY")) {
            throw new SqlStateException("0A000", "only ALTER TABLE ... ADD PRIMARY KEY, ADD UNIQUE and ADD FOREIGN KEY are "
                    + "supported, "
                    + "not ADD " + c.peek().text());
        }
        c.expectWord("KEY");
        final List<String> columns = c.identifierList();
        if (c.peek().is("USING") || c.peek().is("WITH") || c.peek().is("DEFERRABLE") || c.peek().is("INITIALLY")) {
            throw new SqlStateException("0A000", "PRIMARY KEY ... " + c.peek().text() + " is not supported");
        }
        return new Ddl.AddPrimaryKey(table, constraint, columns, ifExists);
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
