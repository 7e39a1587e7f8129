package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.core.TypeInfo;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What pgjdbc needs to learn a type it does not know by its OID (its {@code TypeInfoCache} queries pg_type with
 * {@code typinput = 'pg_catalog.array_in'::regproc}, {@code generate_series(1, array_upper(current_schemas(false),
 * 1))} and a subscript of the schemas by the series): the regproc cast, PostgreSQL's names of the types' input
 * functions, array_lower/array_upper/array_length, and a subscript by a bigint. Values as PostgreSQL 15 answers.
 */
class PgTypeLookupTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() {
        db = new EmbeddedGateway();
    }

    @AfterAll
    static void stop() {
        if (db != null) {
            db.close();
        }
    }

    private static List<String> rows(final Statement s, final String sql) throws SQLException {
        final List<String> out = new ArrayList<>();
        try (ResultSet r = s.executeQuery(sql)) {
            final int n = r.getMetaData().getColumnCount();
            while (r.next()) {
                final StringBuilder b = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    b.append(i == 1 ? "" : ":").append(r.getString(i));
                }
                out.add(b.toString());
            }
        }
        return out;
    }

    @Test
    void pgjdbcLearnsTypesItDoesNotKnowFromTheCatalog() throws SQLException {
        try (Connection c = db.connectPg()) {
            final TypeInfo types = c.unwrap(org.postgresql.core.BaseConnection.class).getTypeInfo();
            assertEquals(Types.ARRAY, types.getSQLType("_int2"), "_int2 is an array: typinput is array_in");
            assertEquals(Types.OTHER, types.getSQLType("regtype"));
            assertEquals(Types.OTHER, types.getSQLType(2205), "regclass by its OID");
            assertEquals("int2vector", types.getPGType(22));
        }
    }

    @Test
    void regprocInputFunctionNamesAndArrayDimensionsAreThoseOfPostgres() throws SQLException {
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            assertEquals(List.of("array_in:t"), rows(s, "SELECT 'pg_catalog.array_in'::regproc, "
                    + "'pg_catalog.array_in'::regproc = 'array_in'"));
            assertEquals(List.of("int4in:int4out", "numeric_in:numeric_out", "jsonb_in:jsonb_out", "array_in:array_out"),
                    rows(s, "SELECT typinput, typoutput FROM pg_type WHERE typname IN ('int4', 'numeric', 'jsonb', "
                            + "'_text') ORDER BY CASE typname WHEN 'int4' THEN 1 WHEN 'numeric' THEN 2 WHEN 'jsonb' THEN 3 "
                            + "ELSE 4 END"));
            assertEquals(List.of("1:3:3:null:null"), rows(s, "SELECT array_lower(ARRAY[5, 6, 7], 1), "
                    + "array_upper(ARRAY[5, 6, 7], 1), array_length(ARRAY[5, 6, 7], 1), array_upper(ARRAY[5], 2), "
                    + "array_length(ARRAY[5], 0)"));
            assertEquals(List.of("1:public"), rows(s, "SELECT s.r, (current_schemas(false))[s.r] FROM "
                    + "generate_series(1, array_upper(current_schemas(false), 1)) AS s(r)"));
            final String q = "SELECT typname FROM pg_type WHERE typinput = 'pg_catalog.array_in'::regproc AND "
                    + "typname = '_int4'";
            assertEquals(List.of("_int4"), rows(s, q));
            assertTrue(rows(s, "SELECT typname FROM pg_type WHERE typinput = 'array_in' AND typname = 'int4'").isEmpty());
        }
    }
}
