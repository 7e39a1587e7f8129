package io.meldb.sql.conformance;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * information_schema over both front ends, against the rows PostgreSQL 15 gives for the same schema (hard-coded
 * here). Where PostgreSQL's rows hold its own OIDs (the names of NOT NULL constraints) the test checks their form.
 */
class InformationSchemaTest extends ConformanceTest {
    private static final String NOT_NULL = "\\d+_\\d+_\\d+_not_null";

    @BeforeAll
    static void createSchema() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA isx");
            s.execute("CREATE TABLE isx.parent (id INT PRIMARY KEY, code VARCHAR(10) UNIQUE, "
                    + "CONSTRAINT parent_id_check CHECK (id > 0))");
            s.execute("CREATE TABLE isx.child (id BIGINT PRIMARY KEY, pid INT NOT NULL REFERENCES isx.parent (id) "
                    + "ON DELETE CASCADE, r REAL, t TIME, tz TIMESTAMP WITH TIME ZONE, b BYTEA, u UUID, j JSON, "
                    + "jb JSONB, x TEXT CHECK (char_length(x) < 100), n NUMERIC(10, 2))");
            s.execute("CREATE SEQUENCE isx.s START 5");
            s.execute("CREATE VIEW isx.v AS SELECT id FROM isx.parent");
        }
    }

    private static List<String> rows(final Statement s, final String sql) throws SQLException {
        return Conformance.rows(s, sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void schemataSequencesViewsAndColumnsAnswerAsPostgreSql(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("meldb:isx"), rows(s, "SELECT catalog_name, schema_name FROM "
                    + "information_schema.schemata WHERE schema_name = 'isx'"));
            assertEquals(List.of("isx:s:bigint:64:2:0:5:1:9223372036854775807:1:NO"), rows(s, "SELECT sequence_schema, "
                    + "sequence_name, data_type, numeric_precision, numeric_precision_radix, numeric_scale, "
                    + "start_value, minimum_value, maximum_value, increment, cycle_option "
                    + "FROM information_schema.sequences WHERE sequence_schema = 'isx'"));
            final List<String> views = rows(s, "SELECT table_name, check_option, view_definition "
                    + "FROM information_schema.views WHERE table_schema = 'isx'");
            assertEquals(1, views.size());
            assertTrue(views.get(0).startsWith("v:NONE:") && views.get(0).contains("parent"), views.toString());
            // PostgreSQL 15: SELECT column_name, data_type, udt_name, is_nullable, character_maximum_length,
            // numeric_precision, numeric_scale FROM information_schema.columns WHERE table_name = 'child'
            assertEquals(List.of(
                    "id:bigint:int8:NO:null:64:0",
                    "pid:integer:int4:NO:null:32:0",
                    "r:real:float4:YES:null:24:null",
                    "t:time without time zone:time:YES:null:null:null",
                    "tz:timestamp with time zone:timestamptz:YES:null:null:null",
                    "b:bytea:bytea:YES:null:null:null",
                    "u:uuid:uuid:YES:null:null:null",
                    "j:json:json:YES:null:null:null",
                    "jb:jsonb:jsonb:YES:null:null:null",
                    "x:text:text:YES:null:null:null",
                    "n:numeric:numeric:YES:null:10:2"), rows(s, "SELECT column_name, data_type, udt_name, "
                    + "is_nullable, character_maximum_length, numeric_precision, numeric_scale "
                    + "FROM information_schema.columns WHERE table_schema = 'isx' AND table_name = 'child' "
                    + "ORDER BY ordinal_position"));
            assertEquals(List.of("code:character varying:10"), rows(s, "SELECT column_name, data_type, "
                    + "character_maximum_length FROM information_schema.columns WHERE table_schema = 'isx' "
                    + "AND table_name = 'parent' AND column_name = 'code'"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void constraintViewsAnswerAsPostgreSql(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            final List<String> checks = rows(s, "SELECT constraint_name, check_clause FROM "
                    + "information_schema.check_constraints WHERE constraint_schema = 'isx' ORDER BY check_clause");
            // PostgreSQL 15: the two CHECKs, then id, pid (child) and id (parent) as NOT NULL checks
            assertEquals(5, checks.size(), checks.toString());
            assertEquals("child_x_check:((char_length(x) < 100))", checks.get(0));
            assertEquals("parent_id_check:((id > 0))", checks.get(1));
            assertTrue(checks.get(2).matches(NOT_NULL + ":id IS NOT NULL"), checks.toString());
            assertTrue(checks.get(3).matches(NOT_NULL + ":id IS NOT NULL"), checks.toString());
            assertTrue(checks.get(4).matches(NOT_NULL + ":pid IS NOT NULL"), checks.toString());

            assertEquals(List.of(
                    "child:child_pid_fkey:FOREIGN KEY",
                    "child:child_pkey:PRIMARY KEY",
                    "child:child_x_check:CHECK",
                    "parent:parent_code_key:UNIQUE",
                    "parent:parent_id_check:CHECK",
                    "parent:parent_pkey:PRIMARY KEY"), rows(s, "SELECT table_name, constraint_name, constraint_type "
                    + "FROM information_schema.table_constraints WHERE constraint_schema = 'isx' "
                    + "AND constraint_name NOT LIKE '%not_null' ORDER BY constraint_name"));
            assertEquals(List.of("3"), rows(s, "SELECT COUNT(*) FROM information_schema.table_constraints "
                    + "WHERE constraint_schema = 'isx' AND constraint_type = 'CHECK' "
                    + "AND constraint_name LIKE '%not_null'"));

            assertEquals(List.of(
                    "child_pid_fkey:parent:id",
                    "child_pkey:child:id",
                    "child_x_check:child:x",
                    "parent_code_key:parent:code",
                    "parent_id_check:parent:id",
                    "parent_pkey:parent:id"), rows(s, "SELECT constraint_name, table_name, column_name "
                    + "FROM information_schema.constraint_column_usage WHERE constraint_schema = 'isx' "
                    + "ORDER BY constraint_name, table_name, column_name"));
            assertEquals(List.of(
                    "child_pid_fkey:child:pid:1:1",
                    "child_pkey:child:id:1:null",
                    "parent_code_key:parent:code:1:null",
                    "parent_pkey:parent:id:1:null"), rows(s, "SELECT constraint_name, table_name, column_name, "
                    + "ordinal_position, position_in_unique_constraint FROM information_schema.key_column_usage "
                    + "WHERE constraint_schema = 'isx' ORDER BY constraint_name"));
            assertEquals(List.of("child_pid_fkey:isx:parent_pkey:NONE:NO ACTION:CASCADE"), rows(s,
                    "SELECT constraint_name, unique_constraint_schema, unique_constraint_name, match_option, "
                    + "update_rule, delete_rule FROM information_schema.referential_constraints "
                    + "WHERE constraint_schema = 'isx'"));
        }
    }
}
