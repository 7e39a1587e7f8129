package io.meldb.sql.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.failure;
import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Text cast to bytea is read as PostgreSQL's byteain reads it: hex format, escape format, and 22023/22P02 for text
 * that is neither (values as PostgreSQL 15 printed them).
 */
class ByteaInputTest extends ConformanceTest {

    @ParameterizedTest
    @ValueSource(strings = {Conformance.PG, Conformance.MELD})
    void textCastToByteaIsReadInTheHexAndEscapeFormats(final String protocol) throws SQLException {
        try (Connection c = Conformance.connect(db, protocol); Statement s = c.createStatement()) {
            assertEquals(List.of("0:4:3:2:3:2"), rows(s, "SELECT length(CAST('\\x' AS VARBINARY)), "
                    + "length(CAST('\\xdeadbeef' AS VARBINARY)), length(CAST('abc' AS VARBINARY)), "
                    + "length(CAST('\\x00ff' AS VARBINARY)), length(CAST('a\\\\b' AS VARBINARY)), "
                    + "length(CAST('\\001\\377' AS VARBINARY))"));
            assertEquals("22023", failure(s, "SELECT CAST('\\xzz' AS VARBINARY)").getSQLState());
            assertEquals("22023", failure(s, "SELECT CAST('\\x0' AS VARBINARY)").getSQLState());
            assertEquals("22P02", failure(s, "SELECT CAST('a\\q' AS VARBINARY)").getSQLState());
        }
    }
}
