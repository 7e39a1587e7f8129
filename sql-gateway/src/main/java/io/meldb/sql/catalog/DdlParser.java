package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Parses MeldDB's DDL: CREATE SCHEMA, DROP SCHEMA, CREATE TABLE (columns, types, NOT NULL, PRIMARY KEY inline or
 * as a table constraint or none, storage parameters), DROP TABLE (several at once), TRUNCATE, ALTER TABLE ... ADD
 * PRIMARY KEY, CREATE INDEX, DROP INDEX. Types take PostgreSQL's spellings too (INT4, INT8, FLOAT8, BOOL, ...). Names may be qualified: {@code schema.name}, or
 * {@code MELDB.schema.name} with the one database's name ({@link Catalog#DATABASE}; another is SQLState 3D000). Calcite's core parser has no DDL, and its DDL parser module is not
 * released for our Calcite version, so this small recursive-descent parser does it, with PostgreSQL-style
 * errors (SQLState 42601 for syntax, 0A000 for what MeldDB does not support).
 */
public final class DdlParser {
    private final List<SqlLexer.Token> tokens;
    private int pos;

    private DdlParser(final String sql) {
        this.tokens = SqlLexer.tokenize(sql);
    }

    /** Whether {@code sql} is DDL this parser handles (starts with CREATE, DROP, ALTER or TRUNCATE). */
    public static boolean isDdl(final String sql) {
        final String first = SqlLexer.firstKeyword(sql);
        return first.equals("CREATE") || first.equals("DROP") || first.equals("ALTER") || first.equals("TRUNCATE");
    }

    public static Ddl parse(final String sql) {
        final DdlParser p = new DdlParser(sql);
        final Ddl ddl = p.statement();
        p.accept(";");
        if (p.peek().kind() != SqlLexer.Kind.END) {
            throw p.syntax("end of statement");
        }
        return ddl;
    }

    private Ddl statement() {
        if (acceptWord("TRUNCATE")) {
            acceptWord("TABLE");
            final List<Ddl.TableName> tables = tableNames();
            if (acceptWord("RESTART") || acceptWord("CONTINUE")) {
                expectWord("IDENTITY"); // MeldDB has no sequences: nothing to restart
            }
            cascadeOrRestrict();
            return new Ddl.Truncate(tables);
        }
        if (acceptWord("ALTER")) {
            return alter();
        }
        if (acceptWord("CREATE")) {
            if (acceptWord("SCHEMA")) {
                final boolean ifNotExists = ifNotExists();
                final String name = schemaName();
                if (peek().is("AUTHORIZATION")) {
                    throw new SqlStateException("0A000", "CREATE SCHEMA ... AUTHORIZATION is not supported");
                }
                return new Ddl.CreateSchema(name, ifNotExists);
            }
            if (acceptWord("TABLE")) {
                return createTable();
            }
            if (acceptWord("UNIQUE")) {
                throw new SqlStateException("0A000", "UNIQUE indexes are not supported");
            }
            if (acceptWord("INDEX")) {
                return createIndex();
            }
            throw new SqlStateException("0A000", "only CREATE SCHEMA, TABLE and INDEX are supported, not CREATE "
                    + peek().text());
        }
        expectWord("DROP");
        if (acceptWord("SCHEMA")) {
            final boolean ifExists = ifExists();
            final String name = schemaName();
            if (accept(",")) {
                throw new SqlStateException("0A000", "DROP SCHEMA of several schemas at once is not supported");
            }
            final boolean cascade = acceptWord("CASCADE");
            if (!cascade) {
                acceptWord("RESTRICT");
            }
            return new Ddl.DropSchema(name, ifExists, cascade);
        }
        if (acceptWord("TABLE")) {
            final boolean ifExists = ifExists();
            final List<Ddl.TableName> tables = new ArrayList<>();
            do {
                final String[] name = qualifiedName();
                tables.add(new Ddl.TableName(name[0], name[1]));
            } while (accept(","));
            return new Ddl.DropTable(tables, ifExists, cascadeOrRestrict());
        }
        if (acceptWord("INDEX")) {
            final boolean ifExists = ifExists();
            final String[] name = qualifiedName();
            return new Ddl.DropIndex(name[0], name[1], ifExists);
        }
        throw new SqlStateException("0A000", "only DROP SCHEMA, TABLE and INDEX are supported, not DROP "
                + peek().text());
    }

    /** {@code ALTER TABLE [IF EXISTS] [ONLY] name ADD [CONSTRAINT name] PRIMARY KEY (columns)}, nothing else. */
    private Ddl alter() {
        if (!acceptWord("TABLE")) {
            throw new SqlStateException("0A000", "only ALTER TABLE is supported, not ALTER " + peek().text());
        }
        final boolean ifExists = ifExists();
        acceptWord("ONLY");
        final String[] name = qualifiedName();
        accept("*");
        if (!acceptWord("ADD")) {
            throw new SqlStateException("0A000", "only ALTER TABLE ... ADD PRIMARY KEY is supported, not ALTER TABLE "
                    + "... " + peek().text());
        }
        String constraint = null;
        if (acceptWord("CONSTRAINT")) {
            constraint = identifier();
        }
        if (!acceptWord("PRIMARY")) {
            throw new SqlStateException("0A000", "only ALTER TABLE ... ADD PRIMARY KEY is supported, not ADD "
                    + peek().text());
        }
        expectWord("KEY");
        final List<String> columns = identifierList();
        if (peek().is("USING") || peek().is("WITH") || peek().is("DEFERRABLE") || peek().is("INITIALLY")) {
            throw new SqlStateException("0A000", "PRIMARY KEY ... " + peek().text() + " is not supported");
        }
        return new Ddl.AddPrimaryKey(new Ddl.TableName(name[0], name[1]), constraint, columns, ifExists);
    }

    /** [ONLY] name [*] [, ...] as TRUNCATE writes them. */
    private List<Ddl.TableName> tableNames() {
        final List<Ddl.TableName> tables = new ArrayList<>();
        do {
            acceptWord("ONLY");
            final String[] name = qualifiedName();
            accept("*");
            tables.add(new Ddl.TableName(name[0], name[1]));
        } while (accept(","));
        return tables;
    }

    /** An optional CASCADE or RESTRICT; whether it was CASCADE. */
    private boolean cascadeOrRestrict() {
        if (acceptWord("CASCADE")) {
            return true;
        }
        acceptWord("RESTRICT");
        return false;
    }

    /**
     * {@code WITH (name [= value] [, ...])} after CREATE TABLE or CREATE INDEX: PostgreSQL's storage parameters
     * (fillfactor, autovacuum_*, ...). They tune PostgreSQL's heap and vacuum, which MeldDB does not have, so
     * they are read and ignored, whatever their names.
     */
    private void storageParameters() {
        if (!acceptWord("WITH")) {
            return;
        }
        expect("(");
        do {
            identifier();
            while (accept(".")) {
                identifier(); // toast.fillfactor
            }
            if (accept("=")) {
                final SqlLexer.Token value = peek();
                if (value.kind() == SqlLexer.Kind.END || value.kind() == SqlLexer.Kind.SYMBOL
                        && !value.text().equals("-") && !value.text().equals("+")) {
                    throw syntax("a storage parameter's value");
                }
                pos++;
                if (value.kind() == SqlLexer.Kind.SYMBOL) {
                    number();
                }
            }
        } while (accept(","));
        expect(")");
    }

    private Ddl createTable() {
        final boolean ifNotExists = ifNotExists();
        final String[] name = qualifiedName();
        expect("(");
        final List<ColumnDef> columns = new ArrayList<>();
        final List<String> pkNames = new ArrayList<>();
        final Set<String> notNull = new LinkedHashSet<>();
        do {
            if (acceptWord("CONSTRAINT")) {
                identifier();
            }
            if (acceptWord("PRIMARY")) {
                expectWord("KEY");
                if (!pkNames.isEmpty()) {
                    throw new SqlStateException("42P16", "multiple primary keys for table \"" + name[1]
                            + "\" are not allowed");
                }
                pkNames.addAll(identifierList());
                continue;
            }
            if (peek().is("UNIQUE") || peek().is("FOREIGN") || peek().is("CHECK")) {
                throw new SqlStateException("0A000", peek().text() + " constraints are not supported");
            }
            final String column = identifier();
            final ColumnType type = type();
            boolean nullable = true;
            while (true) {
                if (acceptWord("NOT")) {
                    expectWord("NULL");
                    nullable = false;
                } else if (acceptWord("NULL")) {
                    nullable = true;
                } else if (acceptWord("PRIMARY")) {
                    expectWord("KEY");
                    if (!pkNames.isEmpty()) {
                        throw new SqlStateException("42P16", "multiple primary keys for table \"" + name[1]
                                + "\" are not allowed");
                    }
                    pkNames.add(column);
                } else if (acceptWord("CONSTRAINT")) {
                    identifier();
                } else if (peek().is("DEFAULT") || peek().is("UNIQUE") || peek().is("REFERENCES")
                        || peek().is("CHECK") || peek().is("GENERATED")) {
                    throw new SqlStateException("0A000", "column option " + peek().text() + " is not supported");
                } else {
                    break;
                }
            }
            for (ColumnDef c : columns) {
                if (c.name().equals(column)) {
                    throw new SqlStateException("42701", "column \"" + column + "\" specified more than once");
                }
            }
            if (!nullable) {
                notNull.add(column);
            }
            columns.add(new ColumnDef(column, type, nullable));
        } while (accept(","));
        expect(")");
        storageParameters();
        if (acceptWord("WITHOUT")) {
            expectWord("OIDS");
        }
        // no PRIMARY KEY: the rows are keyed by a hidden row id (RowIds), pk stays empty
        final int[] pk = new int[pkNames.size()];
        for (int i = 0; i < pk.length; i++) {
            pk[i] = -1;
            for (int c = 0; c < columns.size(); c++) {
                if (columns.get(c).name().equals(pkNames.get(i))) {
                    pk[i] = c;
                }
            }
            if (pk[i] < 0) {
                throw new SqlStateException("42703", "column \"" + pkNames.get(i) + "\" named in key does not exist");
            }
            final ColumnDef c = columns.get(pk[i]);
            columns.set(pk[i], new ColumnDef(c.name(), c.type(), false)); // a key column is NOT NULL
        }
        return new Ddl.CreateTable(name[0], name[1], columns, pk, ifNotExists);
    }

    private Ddl createIndex() {
        final boolean ifNotExists = ifNotExists();
        final String[] name = qualifiedName();
        expectWord("ON");
        final String[] table = qualifiedName();
        final List<String> columns = new ArrayList<>();
        expect("(");
        do {
            columns.add(identifier());
            if (acceptWord("DESC")) {
                throw new SqlStateException("0A000", "descending index columns are not supported");
            }
            acceptWord("ASC");
        } while (accept(","));
        expect(")");
        storageParameters();
        return new Ddl.CreateIndex(table[0] != null ? table[0] : name[0], name[1], table[1], columns, ifNotExists);
    }

    private ColumnType type() {
        final SqlLexer.Token t = peek();
        if (t.kind() != SqlLexer.Kind.WORD || t.quoted()) {
            throw syntax("a type");
        }
        pos++;
        switch (t.text()) {
            case "INT", "INTEGER", "INT4":
                return ColumnType.of(SqlType.INTEGER);
            case "BIGINT", "INT8":
                return ColumnType.of(SqlType.BIGINT);
            case "SMALLINT", "TINYINT", "INT2":
                return ColumnType.of(SqlType.SMALLINT);
            case "DOUBLE":
                acceptWord("PRECISION");
                return ColumnType.of(SqlType.DOUBLE);
            case "FLOAT", "REAL", "FLOAT4", "FLOAT8":
                return ColumnType.of(SqlType.DOUBLE);
            case "BOOLEAN", "BOOL":
                return ColumnType.of(SqlType.BOOLEAN);
            case "DATE":
                return ColumnType.of(SqlType.DATE);
            case "TIMESTAMP":
                if (accept("(")) {
                    number();
                    expect(")");
                }
                if (acceptWord("WITH")) {
                    throw new SqlStateException("0A000", "TIMESTAMP WITH TIME ZONE is not supported");
                }
                if (acceptWord("WITHOUT")) {
                    expectWord("TIME");
                    expectWord("ZONE");
                }
                return ColumnType.of(SqlType.TIMESTAMP);
            case "DECIMAL", "NUMERIC", "DEC": {
                int precision = 19;
                int scale = 0;
                if (accept("(")) {
                    precision = number();
                    if (accept(",")) {
                        scale = number();
                    }
                    expect(")");
                }
                if (precision < 1 || precision > ColumnType.MAX_DECIMAL_PRECISION || scale > precision) {
                    throw new SqlStateException("22023", "DECIMAL precision must be 1.."
                            + ColumnType.MAX_DECIMAL_PRECISION + " and scale 0..precision");
                }
                return new ColumnType(SqlType.DECIMAL, precision, scale);
            }
            case "VARCHAR":
                return new ColumnType(SqlType.VARCHAR, optionalLength(ColumnType.DEFAULT_VARCHAR_LENGTH), 0);
            case "CHAR", "CHARACTER":
                if (acceptWord("VARYING")) {
                    return new ColumnType(SqlType.VARCHAR, optionalLength(ColumnType.DEFAULT_VARCHAR_LENGTH), 0);
                }
                return new ColumnType(SqlType.CHAR, optionalLength(1), 0);
            default:
                throw new SqlStateException("0A000", "type " + t.text() + " is not supported (supported: INTEGER, "
                        + "BIGINT, SMALLINT, DECIMAL, DOUBLE, VARCHAR, CHAR, BOOLEAN, DATE, TIMESTAMP)");
        }
    }

    private int optionalLength(final int dflt) {
        if (!accept("(")) {
            return dflt;
        }
        final int length = number();
        expect(")");
        if (length < 1 || length > ColumnType.MAX_STRING_LENGTH) {
            throw new SqlStateException("22023", "length must be 1.." + ColumnType.MAX_STRING_LENGTH);
        }
        return length;
    }

    private int number() {
        final SqlLexer.Token t = peek();
        if (t.kind() != SqlLexer.Kind.NUMBER) {
            throw syntax("a number");
        }
        pos++;
        try {
            return Integer.parseInt(t.text());
        } catch (NumberFormatException e) {
            throw syntax("an integer");
        }
    }

    private boolean ifNotExists() {
        if (acceptWord("IF")) {
            expectWord("NOT");
            expectWord("EXISTS");
            return true;
        }
        return false;
    }

    private boolean ifExists() {
        if (acceptWord("IF")) {
            expectWord("EXISTS");
            return true;
        }
        return false;
    }

    /** [[database.]schema.]name → {schema or null, name}; the database must be MeldDB's one database. */
    private String[] qualifiedName() {
        final List<String> parts = dottedName(3);
        final String name = parts.get(parts.size() - 1);
        final String schema = parts.size() >= 2 ? parts.get(parts.size() - 2) : null;
        return new String[] {schema, name};
    }

    /** [database.]schema → schema; the database must be MeldDB's one database. */
    private String schemaName() {
        final List<String> parts = dottedName(2);
        return parts.get(parts.size() - 1);
    }

    private List<String> dottedName(final int maxParts) {
        final List<String> parts = new ArrayList<>();
        parts.add(identifier());
        while (accept(".")) {
            parts.add(identifier());
        }
        if (parts.size() > maxParts) {
            throw syntax("a name of at most " + maxParts + " parts");
        }
        if (parts.size() == maxParts && !parts.get(0).equals(Catalog.DATABASE)) {
            throw new SqlStateException("3D000", "database \"" + parts.get(0) + "\" does not exist (this cluster's "
                    + "database is " + Catalog.DATABASE + ")");
        }
        return parts;
    }

    private List<String> identifierList() {
        final List<String> names = new ArrayList<>();
        expect("(");
        do {
            names.add(identifier());
        } while (accept(","));
        expect(")");
        return names;
    }

    private String identifier() {
        final SqlLexer.Token t = peek();
        if (t.kind() != SqlLexer.Kind.WORD) {
            throw syntax("an identifier");
        }
        pos++;
        return t.name();
    }

    private SqlLexer.Token peek() {
        return tokens.get(pos);
    }

    private boolean acceptWord(final String keyword) {
        if (peek().is(keyword)) {
            pos++;
            return true;
        }
        return false;
    }

    private void expectWord(final String keyword) {
        if (!acceptWord(keyword)) {
            throw syntax(keyword);
        }
    }

    private boolean accept(final String symbol) {
        final SqlLexer.Token t = peek();
        if (t.kind() == SqlLexer.Kind.SYMBOL && t.text().equals(symbol)) {
            pos++;
            return true;
        }
        return false;
    }

    private void expect(final String symbol) {
        if (!accept(symbol)) {
            throw syntax("\"" + symbol + "\"");
        }
    }

    private SqlStateException syntax(final String expected) {
        final SqlLexer.Token t = peek();
        final String found = t.kind() == SqlLexer.Kind.END ? "end of statement" : "\"" + t.text() + "\"";
        return new SqlStateException("42601", "syntax error at position " + (t.position() + 1) + ": expected "
                + expected + ", found " + found);
    }
}
