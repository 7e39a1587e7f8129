package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The real psql (15) against MeldDB's PostgreSQL port, as a child process running a script: its describe
 * commands ({@code \d t}, {@code \dt}, {@code \di}, {@code \dn}, {@code \l}) print the catalog, and after a
 * failed statement the session goes on. Skipped when psql is not on the PATH (.ci/run installs it).
 */
@Tag("process")
@Timeout(120)
class PsqlTest {
    private static EmbeddedGateway db;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        assumeTrue(psql() != null, "psql is not on the PATH");
        db = new EmbeddedGateway();
    }

    @AfterAll
    static void stop() {
        if (db != null) {
            db.close();
        }
    }

    private static Path psql() {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            final Path p = Path.of(d, "psql");
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** Runs psql on a script; answers what it printed (standard output and errors, in order). */
    private String runPsql(final String... lines) throws IOException, InterruptedException {
        return runPsqlOn(db, lines);
    }

    private String runPsqlOn(final EmbeddedGateway on, final String... lines) throws IOException, InterruptedException {
        final Path script = dir.resolve("script.sql");
        Files.write(script, List.of(lines), StandardCharsets.UTF_8);
        final ProcessBuilder pb = new ProcessBuilder(psql().toString(), "-X", "-v", "ON_ERROR_STOP=0",
                "-f", script.toString(), on.gateway.pgUrl()).redirectErrorStream(true);
        pb.environment().put("PGUSER", "test");
        pb.environment().put("PGCONNECT_TIMEOUT", "10");
        pb.environment().remove("PGPASSWORD");
        final Process p = pb.start();
        try {
            final byte[] out = p.getInputStream().readAllBytes();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "psql did not finish");
            final String text = new String(out, StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), text);
            return text;
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void shouldShowForeignKeysAndWhatReferencesATable() throws Exception {
        final String out = runPsql(
                "CREATE TABLE fk_p (id INTEGER PRIMARY KEY, name VARCHAR(10));",
                "CREATE TABLE fk_c (id INTEGER PRIMARY KEY, pid INTEGER REFERENCES fk_p ON DELETE CASCADE);",
                "\\d fk_c",
                "\\d fk_p",
                "\\di fk_*");
        assertTrue(out.contains(String.join("\n",
                "Foreign-key constraints:",
                "    \"fk_c_pid_fkey\" FOREIGN KEY (pid) REFERENCES fk_p(id) ON DELETE CASCADE")), out);
        assertTrue(out.contains(String.join("\n",
                "Referenced by:",
                "    TABLE \"fk_c\" CONSTRAINT \"fk_c_pid_fkey\" FOREIGN KEY (pid) REFERENCES fk_p(id) ON DELETE CASCADE")),
                out);
        assertTrue(!out.contains("fk_c_pid_fkey | index"), "the foreign key's own index is hidden: " + out);
    }

    @Test
    void shouldDescribeTablesIndexesSchemasAndDatabasesAndGoOnAfterAnError() throws Exception {
        final String out = runPsql(
                "CREATE TABLE t (id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL, price DECIMAL(10, 2));",
                "CREATE INDEX t_name ON t (name);",
                "\\d t",
                "\\dt",
                "\\di",
                "\\l",
                "SELECT * FROM no_such_table;",
                "SELECT 41 + 1 AS answer;",
                "\\dn",
                "\\df",
                "CREATE SEQUENCE t_seq;",
                "\\ds",
                "INSERT INTO t VALUES (7, 'seven', 7.5);",
                "\\copy t to stdout with (format csv, header)",
                "SELECT current_database(), current_user;");
        assertTrue(out.contains(String.join("\n",
                "Table \"public.t\"",
                " Column |         Type          | Collation | Nullable | Default ",
                "--------+-----------------------+-----------+----------+---------",
                " id     | integer               |           | not null | ",
                " name   | character varying(20) |           | not null | ",
                " price  | numeric(10,2)         |           |          | ",
                "Indexes:",
                "    \"t_pkey\" PRIMARY KEY, btree (id)",
                "    \"t_name\" btree (name)")), out);
        assertTrue(out.contains(" public | t    | table | test\n(1 row)"), out);
        assertTrue(out.contains(" public | t_name | index | test  | t\n public | t_pkey | index | test  | t\n(2 rows)"),
                out);
        assertTrue(out.contains(" meldb | test  | UTF8     |"), out);
        final int error = out.indexOf("ERROR:");
        assertTrue(error > 0 && out.indexOf("no_such_table", error) > 0, out);
        // MeldDB folds the unquoted alias to lower case, as PostgreSQL folds every unquoted name
        final int answer = out.indexOf(" answer \n--------\n     42\n(1 row)");
        assertTrue(answer > error, out);
        assertTrue(out.indexOf(" public | test\n", out.indexOf("List of schemas", answer)) > answer, out);
        assertTrue(out.contains(" meldb            | test\n"), out);
        assertTrue(out.contains("id,name,price\n7,seven,7.50\n"), out);
        assertTrue(out.contains(" public | t_seq | sequence | test\n(1 row)"), out);
        // no CREATE FUNCTION in MeldDB: the list of user functions is empty, as on a fresh PostgreSQL database
        assertTrue(out.contains("List of functions\n Schema | Name | Result data type | Argument data types | Type \n"
                + "--------+------+------------------+---------------------+------\n(0 rows)"), out);
    }

    @Test
    void shouldRestoreAPgDumpOfPostgresql15WithoutAnError() throws Exception {
        final List<String> dump = Files.readAllLines(Path.of(PsqlTest.class.getResource("/pg/pg_dump_shop.sql")
                .toURI()), StandardCharsets.UTF_8);
        final List<String> script = new java.util.ArrayList<>(dump);
        script.add("SELECT id, email, name FROM customers ORDER BY id;");
        script.add("SELECT id, note FROM big_orders;");
        script.add("INSERT INTO customers (email) VALUES ('d@x.com') RETURNING id;");
        script.add("INSERT INTO orders (customer_id, total) VALUES (99, 1);");
        script.add("INSERT INTO orders (customer_id, total) VALUES (1, -5);");
        final String out;
        try (EmbeddedGateway fresh = new EmbeddedGateway()) { // a database of its own, as a restore starts with
            out = runPsqlOn(fresh, script.toArray(new String[0]));
        }
        // every statement of the dump: SET, set_config, CREATE TABLE with a cast in CHECK, ALTER ... OWNER TO,
        // sequences OWNED BY, nextval('s'::regclass) defaults, COPY, setval, constraints, USING btree, the view
        final int firstError = out.indexOf("ERROR:");
        final int checks = out.indexOf(" id |  email  |");
        assertTrue(checks > 0 && (firstError < 0 || firstError > checks), out);
        assertTrue(out.contains("  1 | a@x.com | Ada\n  2 | b@x.com | Bob \"the\" builder\n  3 | c@x.com | tab"), out);
        assertTrue(out.contains("  1 | first\n(1 row)"), out);
        assertTrue(out.contains(" id \n----\n  4\n(1 row)"), "the sequence goes on from setval: " + out);
        assertTrue(out.contains("violates foreign key constraint \"orders_customer_id_fkey\""), out);
        assertTrue(out.contains("violates check constraint \"orders_total_check\""), out);
    }

    @Test
    void shouldDescribeUniqueConstraintsAndIndexesAndShowTheDuplicateKey() throws Exception {
        final String out = runPsql(
                "CREATE TABLE u (id INTEGER PRIMARY KEY, code VARCHAR(5) UNIQUE, name VARCHAR(5));",
                "CREATE UNIQUE INDEX u_name ON u (name);",
                "INSERT INTO u VALUES (1, 'a', 'x');",
                "INSERT INTO u VALUES (2, 'a', 'y');",
                "\\d u");
        assertTrue(out.contains("ERROR:  duplicate key value violates unique constraint \"u_code_key\"\n"
                + "DETAIL:  Key (code)=(a) already exists."), out);
        assertTrue(out.contains(String.join("\n",
                "Indexes:",
                "    \"u_pkey\" PRIMARY KEY, btree (id)",
                "    \"u_code_key\" UNIQUE CONSTRAINT, btree (code)",
                "    \"u_name\" UNIQUE, btree (name)")), out);
    }

    @Test
    void shouldShowTheSchemaTableColumnAndConstraintOfAViolationInVerboseErrors() throws Exception {
        final String out = runPsql(
                "\\set VERBOSITY verbose",
                "CREATE TABLE verr (id INTEGER PRIMARY KEY, code VARCHAR(5) NOT NULL UNIQUE);",
                "INSERT INTO verr VALUES (1, 'a');",
                "INSERT INTO verr VALUES (2, 'a');",
                "INSERT INTO verr VALUES (3, NULL);",
                "DROP TABLE verr;");
        // as psql prints PostgreSQL 15's answers to the same statements (less its LOCATION line)
        assertTrue(out.contains(String.join("\n",
                "ERROR:  23505: duplicate key value violates unique constraint \"verr_code_key\"",
                "DETAIL:  Key (code)=(a) already exists.",
                "SCHEMA NAME:  public",
                "TABLE NAME:  verr",
                "CONSTRAINT NAME:  verr_code_key")), out);
        assertTrue(out.contains(String.join("\n",
                "ERROR:  23502: null value in column \"code\" of relation \"verr\" violates not-null constraint",
                "SCHEMA NAME:  public",
                "TABLE NAME:  verr",
                "COLUMN NAME:  code")), out);
    }

    @Test
    void shouldFindRelationsByPatternAndSchema() throws Exception {
        final String out = runPsql(
                "CREATE SCHEMA IF NOT EXISTS other;",
                "CREATE TABLE other.pattern_a (k BIGINT PRIMARY KEY, v CHAR(3));",
                "\\dt other.*",
                "\\d other.pattern_a",
                "\\d nothing_here");
        assertTrue(out.contains(" other  | pattern_a | table | test\n(1 row)"), out);
        assertTrue(out.contains("Table \"other.pattern_a\""), out);
        assertTrue(out.contains(" k      | bigint       |           | not null | "), out);
        assertTrue(out.contains(" v      | character(3) |           |          | "), out);
        assertTrue(out.contains("Did not find any relation named \"nothing_here\"."), out);
    }

    @Test
    void shouldShowColumnDefaultsAndIdentityInDescribe() throws Exception {
        final String out = runPsql(
                "CREATE TABLE dflt (id SERIAL PRIMARY KEY, status VARCHAR(8) DEFAULT 'new', "
                        + "at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, n BIGINT GENERATED ALWAYS AS IDENTITY);",
                "\\d dflt");
        assertTrue(out.contains(" id     | integer                        |           | not null | "
                + "nextval('dflt_id_seq'::regclass)"), out);
        assertTrue(out.contains(" status | character varying(8)           |           |          | 'new'"), out);
        assertTrue(out.contains(" at     | timestamp(3) without time zone |           |          | CURRENT_TIMESTAMP"),
                out);
        assertTrue(out.contains(" n      | bigint                         |           | not null | generated always "
                + "as identity"), out);
    }

    /**
     * FETCH_COUNT makes psql read a query through a cursor (BEGIN, DECLARE _psql_cursor NO SCROLL CURSOR, FETCH
     * FORWARD n, CLOSE, COMMIT) and print each chunk as it comes: the columns are as wide as the first chunk needs,
     * which is how PostgreSQL 15's psql prints this query too.
     */
    @Test
    void shouldReadAQueryThroughACursorWithFetchCount() throws Exception {
        final String out = runPsql(
                "CREATE TABLE fc (id INTEGER PRIMARY KEY, v VARCHAR(10));",
                "INSERT INTO fc VALUES (1, 'a'), (2, 'bb'), (3, 'ccc'), (4, 'd'), (5, 'e');",
                "\\set FETCH_COUNT 2",
                "SELECT id, v FROM fc ORDER BY id;",
                "\\unset FETCH_COUNT",
                "SELECT count(*) AS open_cursors FROM pg_cursors;");
        assertTrue(out.contains(String.join("\n",
                " id | v  ",
                "----+----",
                "  1 | a",
                "  2 | bb",
                "  3 | ccc",
                "  4 | d",
                "  5 | e",
                "(5 rows)")), out);
        assertTrue(out.contains(" open_cursors \n--------------\n            0\n"), "psql closed it: " + out);
    }

    @Test
    void shouldListAndDescribeViewsAndShowComments() throws Exception {
        final String out = runPsql(
                "CREATE TABLE vbase (id INTEGER PRIMARY KEY, name VARCHAR(20));",
                "CREATE VIEW vnames AS SELECT id, name FROM vbase WHERE id > 0;",
                "COMMENT ON TABLE vbase IS 'the base table';",
                "COMMENT ON COLUMN vbase.name IS 'who';",
                "\\dv",
                "\\d vnames",
                "\\d+ vnames",
                "\\d+ vbase",
                "\\dt+ vbase");
        assertTrue(out.contains(" public | vnames | view | test\n(1 row)"), out);
        assertTrue(out.contains("View \"public.vnames\""), out);
        assertTrue(out.contains(" id     | integer                  |           | not null | "), out);
        assertTrue(out.contains("View definition:\nSELECT \"id\", \"name\"\nFROM \"vbase\"\nWHERE \"id\" > 0"), out);
        assertTrue(out.contains(" name   | character varying(20) |           |          |         | plain   |"
                + "             |              | who"), out);
        assertTrue(out.contains(" public | vbase | table | test  | permanent   | heap          |      | the base table"),
                out);
    }
}
