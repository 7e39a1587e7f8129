package io.meldb.sql.conformance;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * regclass and regtype casts read from the catalog (and oids compared with them as OIDs), and
 * json_build_object/json_build_array, over the PostgreSQL
 * protocol, with the values PostgreSQL 15 answered for the same statements.
 */
class CatalogCastsAndJsonBuildTest extends ConformanceTest {

    @Test
    void regclassCastsNameRelationsAndBackToTheirOids() throws SQLException {
        try (Connection c = Conformance.connect(db, Conformance.PG); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE rc_t (id INT PRIMARY KEY)");
            s.execute("CREATE SCHEMA rc_other");
            s.execute("CREATE TABLE rc_other.hid (id INT PRIMARY KEY)");
            assertEquals(List.of("rc_t"), rows(s, "SELECT oid::regclass::text FROM pg_class WHERE relname = 'rc_t'"));
            assertEquals(List.of("rc_other.hid"),
                    rows(s, "SELECT oid::regclass FROM pg_class WHERE relname = 'hid'"));
            assertEquals(List.of("t"), rows(s, "SELECT 'rc_t'::regclass::oid = (SELECT oid FROM pg_class "
                    + "WHERE relname = 'rc_t')"));
            assertEquals(List.of("rc_other.hid"), rows(s, "SELECT 'rc_other.hid'::regclass::text"));
            assertEquals(List.of("99999999"), rows(s, "SELECT 99999999::regclass::text"));
            assertEquals(List.of("integer:character varying"), rows(s, "SELECT 23::regtype::text, "
                    + "1043::regtype::text"));
            assertEquals("42P01", failure(s, "SELECT 'rc_nosuch'::regclass").getSQLState());
            // an oid compared with a regclass or regtype compares OIDs, as catalog queries of tools write it
            assertEquals(List.of("rc_t"), rows(s, "SELECT relname FROM pg_class c WHERE c.oid = 'rc_t'::regclass"));
            assertEquals(List.of("1"), rows(s, "SELECT count(*) FROM pg_attribute a "
                    + "WHERE a.attrelid = 'public.rc_t'::regclass"));
            // psycopg's TypeInfo.fetch
            assertEquals(List.of("jsonb:3802:3807:jsonb"), rows(s, "SELECT typname AS name, oid, typarray AS array_oid, "
                    + "oid::regtype::text AS regtype FROM pg_type t WHERE t.oid = 'jsonb'::regtype ORDER BY t.oid"));
            assertEquals(List.of("integer:1043"), rows(s, "SELECT 'int4'::regtype, 'character varying'::regtype::oid"));
            assertEquals("42704", failure(s, "SELECT 'nosuchtype'::regtype").getSQLState());
            assertEquals(List.of("jsonb"), rows(s, "SELECT 'pg_catalog.jsonb'::regtype"));
            assertEquals("42704", failure(s, "SELECT 'public.jsonb'::regtype").getSQLState());
        }
    }

    @Test
    void jsonBuildObjectWritesValuesAsPostgresDoes() throws SQLException {
        try (Connection c = Conformance.connect(db, Conformance.PG); Statement s = c.createStatement()) {
            assertEquals(List.of("{\"a\" : 1, \"b\" : true, \"c\" : \"x\\\"y\", \"d\" : null, \"e\" : 1.50}:{}"
                            + ":[1, \"a\", null, false]"),
                    rows(s, "SELECT json_build_object('a', 1, 'b', true, 'c', 'x\"y', 'd', NULL, 'e', 1.50), "
                            + "json_build_object(), json_build_array(1, 'a', NULL, false)"));
            assertEquals("22004", failure(s, "SELECT json_build_object(NULL, 1)").getSQLState());
        }
    }
}
