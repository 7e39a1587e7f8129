package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * PostgreSQL's system information functions and the pg_catalog tables tools read as they connect and reflect a
 * schema (SQLAlchemy, Django, psycopg's TypeInfo), run through the SQL engine as any query is, over pgjdbc's
 * simple and extended protocols. Expected values are what PostgreSQL 15 answers for the same schema.
 */
@Timeout(120)
class PgCatalogFunctionsTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() throws SQLException {
        db = new EmbeddedGateway();
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE author (id SERIAL NOT NULL, name VARCHAR(50) NOT NULL, "
                    + "active BOOLEAN DEFAULT true NOT NULL, PRIMARY KEY (id), UNIQUE (name))");
            s.execute("CREATE TABLE book (id SERIAL NOT NULL, author_id INTEGER NOT NULL, title TEXT, "
                    + "price NUMERIC(10, 2), PRIMARY KEY (id), CHECK (author_id > 0), "
                    + "FOREIGN KEY (author_id) REFERENCES author (id) ON DELETE CASCADE)");
            s.execute("CREATE SCHEMA other");
            s.execute("CREATE TABLE other.hidden (id INTEGER PRIMARY KEY)");
        }
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    private static List<Connection> connections() throws SQLException {
        return List.of(db.connectPg("preferQueryMode=simple"), db.connectPg("preferQueryMode=extended"));
    }

    private static List<String> rows(final String sql) throws SQLException {
        List<String> first = null;
        for (Connection c : connections()) {
            try (c; Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
                final List<String> out = new ArrayList<>();
                final int n = r.getMetaData().getColumnCount();
                while (r.next()) {
                    final StringBuilder b = new StringBuilder();
                    for (int i = 1; i <= n; i++) {
                        b.append(i > 1 ? "|" : "").append(r.getString(i));
                    }
                    out.add(b.toString());
                }
                if (first != null) {
                    assertEquals(first, out, "both protocols answer alike: " + sql);
                }
                first = out;
            }
        }
        return first;
    }

    @Test
    void shouldListEachTypesArrayTypeAsPostgresNumbersThem() throws SQLException {
        assertEquals(List.of("23|int4|1007|0|N", "1007|_int4|0|23|A", "3802|jsonb|3807|0|U"),
                rows("SELECT t.oid, typname, typarray, typelem, typcategory FROM pg_catalog.pg_type t "
                        + "WHERE typname IN ('int4', '_int4', 'jsonb') ORDER BY t.oid"));
        // SQLAlchemy's first query: the hstore extension's type, which MeldDB does not have
        assertEquals(List.of(), rows("SELECT t.oid, typarray FROM pg_type t JOIN pg_namespace ns "
                + "ON typnamespace = ns.oid WHERE typname = 'hstore'"));
    }

    @Test
    void shouldFormatTypesWithTheirModifiersAsFormatTypeDoes() throws SQLException {
        assertEquals(List.of("character varying(10)|numeric(10,2)|integer[]|???|character|bpchar|null"
                        + "|timestamp(3) with time zone|\"char\""),
                rows("SELECT format_type(1043, 14), pg_catalog.format_type(1700, 655366), format_type(1007, -1), "
                        + "format_type(99999, -1), format_type(1042, NULL), format_type(1042, -1), "
                        + "format_type(NULL, 1), format_type(1184, 3), format_type(18, -1)"));
        assertEquals(List.of("id|integer|t", "name|character varying(50)|t", "active|boolean|t"),
                rows("SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull FROM pg_attribute a "
                        + "JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 'author' AND a.attnum > 0 "
                        + "ORDER BY a.attnum"));
    }

    @Test
    void shouldSeeOnlyTablesOfTheSearchPathAsVisible() throws SQLException {
        assertEquals(List.of("author|t", "book|t", "hidden|f"),
                rows("SELECT c.relname, pg_catalog.pg_table_is_visible(c.oid) FROM pg_catalog.pg_class c "
                        + "WHERE c.relkind = 'r' AND c.relname IN ('author', 'book', 'hidden') ORDER BY c.relname"));
        assertEquals(List.of("book"), rows("SELECT relname FROM pg_class c JOIN pg_namespace n "
                + "ON n.oid = c.relnamespace WHERE pg_catalog.pg_table_is_visible(c.oid) AND relname = 'book'"));
        assertEquals(List.of("null"), rows("SELECT pg_table_is_visible(12345678)"));
    }

    @Test
    void shouldDescribeEveryConstraintInPgConstraintAsPgGetConstraintdefWritesIt() throws SQLException {
        assertEquals(List.of(
                        "author_name_key|u|UNIQUE (name)",
                        "author_pkey|p|PRIMARY KEY (id)",
                        "book_author_id_check|c|CHECK (author_id > 0)",
                        "book_author_id_fkey|f|FOREIGN KEY (author_id) REFERENCES author(id) ON DELETE CASCADE",
                        "book_pkey|p|PRIMARY KEY (id)"),
                rows("SELECT r.conname, r.contype, pg_catalog.pg_get_constraintdef(r.oid, true) "
                        + "FROM pg_catalog.pg_constraint r JOIN pg_class c ON c.oid = r.conrelid "
                        + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' ORDER BY 1"));
        assertEquals(List.of("CHECK ((author_id > 0))"),
                rows("SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE contype = 'c'"));
        assertEquals(List.of("book_author_id_fkey|author|author_pkey|a|c"),
                rows("SELECT r.conname, p.relname, i.relname, r.confupdtype, r.confdeltype FROM pg_constraint r "
                        + "JOIN pg_class p ON p.oid = r.confrelid JOIN pg_class i ON i.oid = r.conindid "
                        + "WHERE r.contype = 'f'"));
    }

    @Test
    void shouldListConstrainedColumnsInConkeyAndReferencedOnesInConfkey() throws SQLException {
        assertEquals(List.of("author_name_key|{2}|null", "book_author_id_check|{2}|null",
                        "book_author_id_fkey|{2}|{1}", "book_pkey|{1}|null"),
                rows("SELECT conname, conkey, confkey FROM pg_constraint WHERE conname LIKE 'book%' "
                        + "OR conname = 'author_name_key' ORDER BY conname"));
        // SQLAlchemy's get_unique_constraints
        assertEquals(List.of("author_name_key|2|name"),
                rows("SELECT cons.conname AS name, a.attnum AS col_num, a.attname AS col_name "
                        + "FROM pg_catalog.pg_constraint cons JOIN pg_attribute a ON cons.conrelid = a.attrelid "
                        + "AND a.attnum = ANY(cons.conkey) WHERE cons.contype = 'u'"));
    }

    @Test
    void shouldListSequencesInPgClassPgSequenceAndTheirOwnersInPgDepend() throws SQLException {
        assertEquals(List.of("author_id_seq|S|23|1|1|2147483647|1|1|f", "book_id_seq|S|23|1|1|2147483647|1|1|f"),
                rows("SELECT c.relname, c.relkind, s.seqtypid, s.seqstart, s.seqincrement, s.seqmax, s.seqmin, "
                        + "s.seqcache, s.seqcycle FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid "
                        + "ORDER BY 1"));
        assertEquals(List.of("a|author|id", "a|book|id"),
                rows("SELECT d.deptype, t.relname, a.attname FROM pg_depend d JOIN pg_class s ON s.oid = d.objid "
                        + "JOIN pg_class t ON t.oid = d.refobjid JOIN pg_attribute a ON a.attrelid = t.oid "
                        + "AND a.attnum = d.refobjsubid WHERE s.relkind = 'S' ORDER BY 2"));
        // owned by the session's user ("test"), who created them, as in PostgreSQL
        assertEquals(List.of("public|author_id_seq|test|integer|1|1|2147483647|1|f|1",
                        "public|book_id_seq|test|integer|1|1|2147483647|1|f|1"),
                rows("SELECT schemaname, sequencename, sequenceowner, data_type, start_value, min_value, max_value, "
                        + "increment_by, cycle, cache_size FROM pg_sequences ORDER BY 2"));
    }

    @Test
    void shouldShowColumnDefaultsThroughPgAttrdefAndPgGetExpr() throws SQLException {
        assertEquals(List.of("id|nextval('author_id_seq'::regclass)", "active|true"),
                rows("SELECT a.attname, (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid) "
                        + "FROM pg_catalog.pg_attrdef d WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum "
                        + "AND a.atthasdef) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
                        + "WHERE c.relname = 'author' AND a.atthasdef ORDER BY a.attnum"));
    }

    @Test
    void shouldNameTheSequenceASerialColumnOwns() throws SQLException {
        assertEquals(List.of("public.author_id_seq|public.book_id_seq|null"),
                rows("SELECT pg_get_serial_sequence('author', 'id'), pg_get_serial_sequence('public.BOOK', 'id'), "
                        + "pg_get_serial_sequence('book', 'title')"));
        for (String[] bad : new String[][] {{"'nosuch', 'id'", "42P01"}, {"'book', 'nosuch'", "42703"}}) {
            final SQLException e = assertThrows(SQLException.class,
                    () -> rows("SELECT pg_get_serial_sequence(" + bad[0] + ")"));
            assertEquals(bad[1], e.getSQLState(), e.getMessage());
        }
    }

    @Test
    void shouldAnswerTheRoleAndServerStateFunctions() throws SQLException {
        // MeldDB has no roles: the one role is the session's user ("test" here), OID 10
        assertEquals(List.of("test|f|UTF8|test|t"),
                rows("SELECT pg_get_userbyid(10), pg_is_in_recovery(), pg_encoding_to_char(6), r.rolname, "
                        + "r.rolsuper FROM pg_roles r WHERE r.oid = 10"));
        assertEquals(List.of("{pg_catalog,public}|{public}"), rows("SELECT current_schemas(true), current_schemas(false)"));
        // pgjdbc's lookup of a type OID it does not know
        assertEquals(List.of("t|pg_catalog|jsonb"), rows("SELECT n.nspname = ANY(current_schemas(true)), n.nspname, "
                + "t.typname FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON t.typnamespace = n.oid "
                + "WHERE t.oid = 3802"));
        assertEquals(List.of(), rows("SELECT enumlabel FROM pg_enum"));
        assertEquals(List.of(), rows("SELECT rngtypid FROM pg_catalog.pg_range"));
    }

    @Test
    void psqlsNamePatternsIndexColumnsAndEmptyCatalogsAnswerAsPostgres() throws SQLException {
        // as PostgreSQL 15 answers (psql's forms: OPERATOR(pg_catalog.~), COLLATE pg_catalog.default)
        assertEquals(List.of("author_name_key|CREATE UNIQUE INDEX author_name_key ON author USING btree (name)|name|null",
                "author_pkey|CREATE UNIQUE INDEX author_pkey ON author USING btree (id)|id|null"),
                rows("SELECT c.relname, pg_get_indexdef(c.oid, 0, true), pg_get_indexdef(c.oid, 1, true), "
                        + "pg_get_indexdef(c.oid, 2, true) FROM pg_class c WHERE c.relname OPERATOR(pg_catalog.~) "
                        + "'^(author_.*)$' COLLATE pg_catalog.default AND c.relkind = 'i' ORDER BY 1"));
        assertEquals(List.of("0|0|0|0|0|0|0"), rows("SELECT (SELECT count(*) FROM pg_catalog.pg_policy), "
                + "(SELECT count(*) FROM pg_catalog.pg_publication), (SELECT count(*) FROM pg_statistic_ext), "
                + "(SELECT count(*) FROM pg_publication_rel), (SELECT count(*) FROM pg_publication_namespace), "
                + "(SELECT count(*) FROM pg_auth_members), (SELECT count(*) FROM pg_rewrite)"));
        assertEquals(List.of("null|DEFAULT true"), rows("SELECT pg_function_is_visible(0), 'DEFAULT ' || "
                + "pg_get_expr(d.adbin, d.adrelid, true) FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = "
                + "d.adrelid AND a.attnum = d.adnum WHERE a.attname = 'active'"));
    }

    @Test
    void regnamespaceAndTheCollationsAnswerAsPostgres() throws SQLException {
        // as PostgreSQL 15 answers
        assertEquals(List.of("public|public|2200|public"), rows("SELECT 'public'::regnamespace, 2200::regnamespace, "
                + "'public'::regnamespace::oid, n.nspname FROM pg_namespace n WHERE n.oid = 'public'::regnamespace"));
        assertEquals("3F000", assertThrows(SQLException.class, () -> rows("SELECT 'nope'::regnamespace"))
                .getSQLState());
        assertEquals(List.of("100|default", "950|C", "951|POSIX"), rows("SELECT oid, collname FROM pg_collation "
                + "ORDER BY oid"));
        assertEquals(List.of("null|null"), rows("SELECT c.relpartbound, d.daticulocale FROM pg_class c, pg_database d "
                + "WHERE c.relname = 'author'"));
        // psql's \\df: no functions of MeldDB's are in pg_proc, and the functions over it answer NULL for other OIDs
        assertEquals(List.of("0|null|null"), rows("SELECT (SELECT count(*) FROM pg_catalog.pg_proc p WHERE "
                + "pg_catalog.pg_function_is_visible(p.oid)), pg_catalog.pg_get_function_result(1), "
                + "pg_catalog.pg_get_function_arguments(1)"));
    }

    @Test
    void sizesArePrettyAsPostgresAndUnknownForTables() throws SQLException {
        // as PostgreSQL 15 answers; a table's size is unknown (NULL) in MeldDB, whose tables share one tree
        assertEquals(List.of("0 bytes|10239 bytes|10 kB|20 MB|20 MB|1150 GB|-10 kB|8192 PB|null"),
                rows("SELECT pg_size_pretty(0), pg_size_pretty(10239), pg_size_pretty(10240), "
                        + "pg_size_pretty(20971519), pg_size_pretty(20971520), pg_size_pretty(1234567890123), "
                        + "pg_size_pretty(-10240), pg_size_pretty(9223372036854775807), "
                        + "pg_size_pretty(pg_table_size('author'::regclass))"));
    }
}
