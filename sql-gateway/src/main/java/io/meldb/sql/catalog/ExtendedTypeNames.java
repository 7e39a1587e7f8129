package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;

/**
 * The DDL names of the types beyond SQL-92's core, as PostgreSQL and JDBC tools write them: TIME, TIMESTAMPTZ,
 * TEXT, BYTEA / VARBINARY / BINARY VARYING, UUID, JSON / JSONB. {@link DdlParser} reads the other names.
 */
final class ExtendedTypeNames {
    private ExtendedTypeNames() {
    }

    /** The type whose first word {@code t} the cursor has just passed, or null when it is not one of these. */
    static ColumnType type(final DdlCursor c, final SqlLexer.Token t) {
        switch (t.text()) {
            case "TIME":
                precision(c);
                if (c.acceptWord("WITH")) {
                    throw new SqlStateException("0A000", "TIME WITH TIME ZONE is not supported (use TIMESTAMP WITH "
                            + "TIME ZONE, or TIME)");
                }
                if (c.acceptWord("WITHOUT")) {
                    c.expectWord("TIME");
                    c.expectWord("ZONE");
                }
                return ColumnType.of(SqlType.TIME);
            case "TIMESTAMPTZ":
                precision(c);
                return ColumnType.of(SqlType.TIMESTAMPTZ);
            case "TEXT":
                return ColumnType.of(SqlType.TEXT);
            case "BYTEA":
                return ColumnType.of(SqlType.BYTEA);
            case "VARBINARY":
                // the length is accepted and not enforced: BYTEA has none
                precision(c);
                return ColumnType.of(SqlType.BYTEA);
            case "BINARY":
                if (!c.acceptWord("VARYING")) {
                    throw new SqlStateException("0A000", "type BINARY is not supported (use BYTEA, VARBINARY or "
                            + "BINARY VARYING)");
                }
                precision(c);
                return ColumnType.of(SqlType.BYTEA);
            case "UUID":
                return ColumnType.of(SqlType.UUID);
            case "JSON":
                return ColumnType.of(SqlType.JSON);
            case "JSONB":
                return new ColumnType(SqlType.JSON, 0, ColumnType.JSONB_FLAG);
            default:
                return null;
        }
    }

    /** A {@code (n)} after the type name, read and not kept. */
    private static void precision(final DdlCursor c) {
        if (c.accept("(")) {
            c.number();
            c.expect(")");
        }
    }
}
