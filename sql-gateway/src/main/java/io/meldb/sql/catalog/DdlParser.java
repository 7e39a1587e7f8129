package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Parses MeldDB's DDL: CREATE SCHEMA, DROP SCHEMA, CREATE TABLE (columns, types, NOT NULL, DEFAULT, CHECK, SERIAL,
 * identity columns, PRIMARY KEY inline or as a table constraint or none, storage parameters), CREATE and DROP
 * SEQUENCE, DROP TABLE (several at once), TRUNCATE, ALTER TABLE ({@link AlterTableParser}), CREATE [UNIQUE] INDEX,
 * DROP INDEX, UNIQUE and FOREIGN KEY constraints ({@link ForeignKeyParser}). Types take PostgreSQL's spellings too (INT4, INT8, FLOAT8, BOOL, ...). Names may be qualified: {@code schema.name}, or
 * {@code MELDB.schema.name} with the one database's name ({@link Catalog#DATABASE}; another is SQLState 3D000). Calcite's core parser has no DDL, and its DDL parser module is not
 * released for our Calcite version, so this small recursive-descent parser does it, with PostgreSQL-style
 * errors (SQLState 42601 for syntax, 0A000 for what MeldDB does not support).
 */
public final class DdlParser extends DdlCursor {
    private DdlParser(final String sql) {
        super(sql);
    }

    /** Whether {@code sql} is DDL this parser handles (starts with CREATE, DROP, ALTER or TRUNCATE). */
    public static boolean isDdl(final String sql) {
        final String first = SqlLexer.firstKeyword(sql);
        return first.equals("CREATE") || first.equals("DROP") || first.equals("ALTER") || first.equals("TRUNCATE")
                || first.equals("COMMENT") || first.equals("ANALYZE") || first.equals("ANALYSE");
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

    /** After ANALYZE: options, then table names each with an optional column list (accepted: MeldDB counts rows). */
    private Ddl analyze() {
        if (!acceptWord("VERBOSE") && accept("(")) {
            while (!accept(")")) {
                if (peek().kind() == SqlLexer.Kind.END) {
                    throw syntax(")");
                }
                pos++;
            }
        }
        final List<Ddl.TableName> tables = new java.util.ArrayList<>();
        while (peek().kind() != SqlLexer.Kind.END && !";".equals(peek().text())) {
            if (!tables.isEmpty()) {
                expect(",");
            }
            final String[] name = qualifiedName();
            tables.add(new Ddl.TableName(name[0], name[1]));
            if (accept("(")) {
                do {
                    identifier();
                } while (accept(","));
                expect(")");
            }
        }
        return new Ddl.Analyze(tables);
    }

    /** The DEFAULT expression {@code text} for a column of {@code type} (ALTER COLUMN ... SET DEFAULT). */
    static ColumnDefault defaultFor(final String text, final ColumnType type) {
        final DdlParser p = new DdlParser(text);
        final ColumnDefault d = ColumnClauses.defaultExpression(p, type);
        if (p.peek().kind() != SqlLexer.Kind.END) {
            throw p.syntax("end of the DEFAULT expression");
        }
        return d;
    }

    private Ddl statement() {
        if (acceptWord("ANALYZE") || acceptWord("ANALYSE")) {
            return analyze();
        }
        if (acceptWord("TRUNCATE")) {
            acceptWord("TABLE");
            final List<Ddl.TableName> tables = tableNames();
            final boolean restart = acceptWord("RESTART");
            if (restart || acceptWord("CONTINUE")) {
                expectWord("IDENTITY");
            }
            return new Ddl.Truncate(tables, restart, cascadeOrRestrict());
        }
        if (acceptWord("ALTER")) {
            return AlterTableParser.alter(this);
        }
        if (acceptWord("COMMENT")) {
            expectWord("ON");
            return QueryDdlParser.commentOn(this);
        }
        if (acceptWord("CREATE")) {
            if (peek().is("OR") && pos + 2 < tokens.size() && tokens.get(pos + 2).is("VIEW")) {
                acceptWord("OR");
                expectWord("REPLACE");
                expectWord("VIEW");
                return QueryDdlParser.createView(this, true);
            }
            if (acceptWord("VIEW")) {
                return QueryDdlParser.createView(this, false);
            }
            if (acceptWord("EXTENSION")) {
                ifNotExists();
                final String name = extension(identifier());
                while (peek().kind() != SqlLexer.Kind.END && !";".equals(peek().text())) {
                    pos++; // WITH, SCHEMA s, VERSION v, CASCADE: nothing to install
                }
                return new Ddl.NoEffect("CREATE EXTENSION " + name);
            }
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
            if (acceptWord("SEQUENCE")) {
                final boolean ifNotExists = ifNotExists();
                final String[] name = qualifiedName();
                return new Ddl.CreateSequence(name[0], name[1], ColumnClauses.sequenceOptions(this), ifNotExists);
            }
            final boolean unique = acceptWord("UNIQUE");
            if (unique) {
                expectWord("INDEX");
                return createIndex(true);
            }
            if (acceptWord("INDEX")) {
                return createIndex(false);
            }
            throw new SqlStateException("0A000", "only CREATE SCHEMA, TABLE, VIEW, INDEX and SEQUENCE are supported, "
                    + "not CREATE " + (peek().is("OR") && pos + 2 < tokens.size() ? "OR REPLACE "
                    + tokens.get(pos + 2).text() : peek().text()));
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
            acceptWord("CONCURRENTLY");
            final boolean ifExists = ifExists();
            final String[] name = qualifiedName();
            cascadeOrRestrict(); // nothing depends on an index
            return new Ddl.DropIndex(name[0], name[1], ifExists);
        }
        if (acceptWord("VIEW")) {
            return QueryDdlParser.dropView(this);
        }
        if (acceptWord("SEQUENCE")) {
            final boolean ifExists = ifExists();
            final List<Ddl.TableName> sequences = new ArrayList<>();
            do {
                final String[] name = qualifiedName();
                sequences.add(new Ddl.TableName(name[0], name[1]));
            } while (accept(","));
            cascadeOrRestrict();
            return new Ddl.DropSequence(sequences, ifExists);
        }
        if (acceptWord("EXTENSION")) {
            ifExists();
            final String name = extension(identifier());
            cascadeOrRestrict();
            return new Ddl.NoEffect("DROP EXTENSION " + name);
        }
        throw new SqlStateException("0A000", "only DROP SCHEMA, TABLE, VIEW, INDEX and SEQUENCE are supported, not "
                + "DROP "
                + peek().text());
    }

    /**
     * An extension a schema may ask for whose common functions MeldDB has built in: {@code uuid-ossp}
     * ({@code uuid_generate_v4()}), {@code pgcrypto} ({@code gen_random_uuid()}) and {@code plpgsql} (PostgreSQL's
     * default language, which older pg_dumps create); CREATE and DROP of them change nothing. Any other is 0A000.
     */
    private static String extension(final String name) {
        if (name.equals("uuid-ossp") || name.equals("pgcrypto") || name.equals("plpgsql")) {
            return name;
        }
        throw new SqlStateException("0A000", "extension \"" + name + "\" is not available: MeldDB has no extensions "
                + "(CREATE EXTENSION of uuid-ossp, pgcrypto and plpgsql is accepted: their common functions are built in)");
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
        final Ddl asQuery = QueryDdlParser.createTableAs(this, name, ifNotExists);
        if (asQuery != null) {
            return asQuery;
        }
        expect("(");
        final List<ColumnDef> columns = new ArrayList<>();
        final List<Ddl.SequenceOptions> sequenceOptions = new ArrayList<>();
        final List<String> pkNames = new ArrayList<>();
        final List<Ddl.Unique> uniques = new ArrayList<>();
        final List<Ddl.ForeignKey> foreignKeys = new ArrayList<>();
        // CHECK constraints as written: {name or null, text, column or null (a table constraint)}
        final List<String[]> checks = new ArrayList<>();
        do {
            String constraint = null;
            if (acceptWord("CONSTRAINT")) {
                constraint = identifier();
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
            if (acceptWord("CHECK")) {
                checks.add(new String[] {constraint, ColumnClauses.parenthesizedText(this), null});
                noInherit();
                continue;
            }
            if (acceptWord("UNIQUE")) {
                uniques.add(new Ddl.Unique(constraint, identifierList()));
                AlterTableParser.uniqueOptions(this);
                continue;
            }
            if (acceptWord("FOREIGN")) {
                expectWord("KEY");
                foreignKeys.add(ForeignKeyParser.tableConstraint(this, constraint));
                continue;
            }
            if (peek().is("EXCLUDE")) {
                throw new SqlStateException("0A000", peek().text() + " constraints are not supported");
            }
            if (constraint != null) {
                throw syntax("PRIMARY KEY, UNIQUE, CHECK or FOREIGN KEY");
            }
            final String column = identifier();
            final io.meldb.sql.codec.SqlType serial = ColumnClauses.serialType(peek());
            final ColumnType type;
            if (serial != null) {
                pos++;
                type = ColumnType.of(serial);
            } else {
                type = type();
            }
            boolean nullable = serial == null;
            ColumnDefault dflt = serial != null ? ColumnDefault.ownedSequence() : null;
            ColumnDef.Identity identity = ColumnDef.Identity.NONE;
            Ddl.SequenceOptions options = serial != null ? Ddl.SequenceOptions.NONE.withType(serial) : null;
            String columnConstraint = null;
            while (true) {
                if (acceptWord("NOT")) {
                    expectWord("NULL");
                    nullable = false;
                } else if (acceptWord("NULL")) {
                    if (identity != ColumnDef.Identity.NONE || serial != null) {
                        throw new SqlStateException("42601", "conflicting NULL/NOT NULL declarations for column \""
                                + column + "\"");
                    }
                    nullable = true;
                } else if (acceptWord("PRIMARY")) {
                    expectWord("KEY");
                    if (!pkNames.isEmpty()) {
                        throw new SqlStateException("42P16", "multiple primary keys for table \"" + name[1]
                                + "\" are not allowed");
                    }
                    pkNames.add(column);
                } else if (acceptWord("CONSTRAINT")) {
                    columnConstraint = identifier();
                    continue;
                } else if (acceptWord("DEFAULT")) {
                    if (dflt != null) {
                        throw new SqlStateException("42601", "multiple default values specified for column \""
                                + column + "\" of table \"" + name[1] + "\"");
                    }
                    dflt = ColumnClauses.defaultExpression(this, type);
                } else if (acceptWord("CHECK")) {
                    checks.add(new String[] {columnConstraint, ColumnClauses.parenthesizedText(this), column});
                    noInherit();
                } else if (acceptWord("GENERATED")) {
                    if (dflt != null) {
                        throw new SqlStateException("42601", "both default and identity specified for column \""
                                + column + "\" of table \"" + name[1] + "\"");
                    }
                    if (acceptWord("ALWAYS")) {
                        identity = ColumnDef.Identity.ALWAYS;
                    } else {
                        expectWord("BY");
                        expectWord("DEFAULT");
                        identity = ColumnDef.Identity.BY_DEFAULT;
                    }
                    expectWord("AS");
                    if (!acceptWord("IDENTITY")) {
                        throw new SqlStateException("0A000", "generated columns other than identity columns are "
                                + "not supported");
                    }
                    if (!type.type().isExactInteger()) {
                        throw new SqlStateException("22023", "identity column type must be smallint, integer, or "
                                + "bigint");
                    }
                    options = Ddl.SequenceOptions.NONE;
                    if (accept("(")) {
                        options = ColumnClauses.sequenceOptions(this);
                        expect(")");
                    }
                    options = options.withType(type.type());
                    dflt = ColumnDefault.ownedSequence();
                    nullable = false;
                } else if (acceptWord("UNIQUE")) {
                    uniques.add(new Ddl.Unique(columnConstraint, List.of(column)));
                    AlterTableParser.uniqueOptions(this);
                } else if (acceptWord("REFERENCES")) {
                    foreignKeys.add(ForeignKeyParser.references(this, columnConstraint, List.of(column)));
                } else {
                    break;
                }
                columnConstraint = null;
            }
            for (ColumnDef c : columns) {
                if (c.name().equals(column)) {
                    throw new SqlStateException("42701", "column \"" + column + "\" specified more than once");
                }
            }
            columns.add(new ColumnDef(column, type, nullable, dflt, identity));
            sequenceOptions.add(options);
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
            columns.set(pk[i], columns.get(pk[i]).withNullable(false)); // a key column is NOT NULL
        }
        return new Ddl.CreateTable(name[0], name[1], columns, pk, ifNotExists, checkDefs(name[1], columns, checks),
                sequenceOptions, uniques, foreignKeys);
    }

    /** PostgreSQL's {@code NO INHERIT} after a CHECK: MeldDB has no table inheritance, so it changes nothing. */
    private void noInherit() {
        if (acceptWord("NO")) {
            expectWord("INHERIT");
        }
    }

    /**
     * The CHECK constraints with their names: as given, or PostgreSQL's {@code <table>_<column>_check} (the
     * column of a column constraint, or the only column a table constraint reads) or {@code <table>_check},
     * numbered when taken. Each condition is compiled here, so one MeldDB could not evaluate is refused now.
     */
    private static List<CheckDef> checkDefs(final String table, final List<ColumnDef> columns,
                                            final List<String[]> checks) {
        final List<CheckDef> out = new ArrayList<>();
        final Set<String> names = new LinkedHashSet<>();
        for (String[] c : checks) {
            CheckExpression.of(c[1], columns);
            String name = c[0];
            if (name == null) {
                final List<String> read = CheckExpression.columnsOf(c[1]);
                final String column = c[2] != null ? c[2] : read.size() == 1 ? read.get(0) : null;
                final String base = table + (column == null ? "" : "_" + column) + "_check";
                name = base;
                for (int n = 1; names.contains(name); n++) {
                    name = base + n;
                }
            } else if (names.contains(name)) {
                throw new SqlStateException("42710", "constraint \"" + name + "\" for relation \"" + table
                        + "\" already exists");
            }
            names.add(name);
            out.add(new CheckDef(name, c[1]));
        }
        return out;
    }

    /**
     * CREATE [UNIQUE] INDEX [CONCURRENTLY] [IF NOT EXISTS] [name] ON table [USING btree|hash] (column [opclass]
     * [ASC] [NULLS LAST], ...) [INCLUDE (...)] [WITH (...)], as PostgreSQL and pg_dump write it. CONCURRENTLY means
     * nothing more here (building an index takes no lock that writers wait for); an operator class such as
     * {@code varchar_pattern_ops} (Django's LIKE indexes) and INCLUDE columns change nothing about which rows an
     * ordered index finds. A missing name is PostgreSQL's ({@code table_column_idx}). Expressions, partial indexes
     * (WHERE), DESC, NULLS FIRST and other index methods are 0A000 naming what is missing.
     */
    private Ddl createIndex(final boolean unique) {
        acceptWord("CONCURRENTLY");
        final boolean ifNotExists = ifNotExists();
        final String[] name = peek().is("ON") ? null : qualifiedName();
        expectWord("ON");
        acceptWord("ONLY");
        final String[] table = qualifiedName();
        if (acceptWord("USING")) {
            final String method = identifier();
            if (!method.equals("btree") && !method.equals("hash")) {
                throw new SqlStateException("0A000", "index method \"" + method + "\" is not supported: MeldDB's "
                        + "indexes are ordered (btree)");
            }
        }
        final List<String> columns = new ArrayList<>();
        expect("(");
        do {
            if (peek().kind() == SqlLexer.Kind.SYMBOL && peek().text().equals("(")
                    || peek().kind() == SqlLexer.Kind.WORD && tokens.get(pos + 1).kind() == SqlLexer.Kind.SYMBOL
                    && tokens.get(pos + 1).text().equals("(")) {
                throw new SqlStateException("0A000", "indexes on expressions are not supported: index a column");
            }
            columns.add(identifier());
            if (acceptWord("COLLATE")) {
                identifier();
            }
            if (peek().kind() == SqlLexer.Kind.WORD && !peek().quoted() && peek().text().endsWith("_OPS")) {
                pos++; // an operator class: the column's order is the only one MeldDB's index has
            }
            if (acceptWord("DESC")) {
                throw new SqlStateException("0A000", "descending index columns are not supported");
            }
            acceptWord("ASC");
            if (acceptWord("NULLS")) {
                if (acceptWord("FIRST")) {
                    throw new SqlStateException("0A000", "NULLS FIRST index columns are not supported");
                }
                expectWord("LAST");
            }
        } while (accept(","));
        expect(")");
        if (acceptWord("INCLUDE")) {
            expect("(");
            do {
                identifier();
            } while (accept(","));
            expect(")");
        }
        if (unique) {
            AlterTableParser.uniqueOptions(this);
        }
        storageParameters();
        if (peek().is("WHERE")) {
            throw new SqlStateException("0A000", "partial indexes (CREATE INDEX ... WHERE) are not supported");
        }
        final String indexName = name != null ? name[1]
                : table[1] + "_" + String.join("_", columns) + "_idx";
        return new Ddl.CreateIndex(table[0] != null ? table[0] : name != null ? name[0] : null, indexName, table[1],
                columns, ifNotExists, unique);
    }

    ColumnType type() {
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
            case "REAL", "FLOAT4":
                return ColumnType.of(SqlType.REAL);
            case "FLOAT8":
                return ColumnType.of(SqlType.DOUBLE);
            case "FLOAT": {
                // PostgreSQL: float(1) to float(24) is real, float(25) to float(53) and plain float are double
                final boolean declared = accept("(");
                final int bits = declared ? number() : 53;
                if (declared) {
                    expect(")");
                }
                if (bits < 1 || bits > 53) {
                    throw new SqlStateException("22023", "precision for type float must be between 1 and 53 bits");
                }
                return ColumnType.of(bits <= 24 ? SqlType.REAL : SqlType.DOUBLE);
            }
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
                    expectWord("TIME");
                    expectWord("ZONE");
                    return ColumnType.of(SqlType.TIMESTAMPTZ);
                }
                if (acceptWord("WITHOUT")) {
                    expectWord("TIME");
                    expectWord("ZONE");
                }
                return ColumnType.of(SqlType.TIMESTAMP);
            case "DECIMAL", "NUMERIC", "DEC": {
                int precision;
                int scale = 0;
                if (!accept("(")) {
                    // PostgreSQL's numeric without a precision keeps every value as written
                    return ColumnType.NUMERIC;
                } else {
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
                final ColumnType more = ExtendedTypeNames.type(this, t);
                if (more != null) {
                    return more;
                }
                throw new SqlStateException("0A000", "type " + t.text() + " is not supported (supported: INTEGER, "
                        + "BIGINT, SMALLINT, DECIMAL, NUMERIC, DOUBLE, REAL, VARCHAR, CHAR, TEXT, BOOLEAN, DATE, TIME, "
                        + "TIMESTAMP, TIMESTAMPTZ, BYTEA, VARBINARY, UUID, JSON, JSONB)");
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
}
