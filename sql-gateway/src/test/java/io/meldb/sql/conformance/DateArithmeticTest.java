package io.meldb.sql.conformance;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static io.meldb.sql.conformance.Conformance.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * PostgreSQL 15's types for date arithmetic and date_part over the PostgreSQL protocol: a date plus or minus an
 * interval is a timestamp (date_pl_interval), a date plus or minus an integer a date, date_part double precision
 * (extract is numeric). Expected values and types are what PostgreSQL 15 answered.
 */
class DateArithmeticTest extends ConformanceTest {

    @Test
    void aDatePlusAnIntervalIsATimestampAndPlusAnIntegerADate() throws SQLException {
        try (Connection c = Conformance.connect(db, Conformance.PG); Statement s = c.createStatement()) {
            assertEquals(List.of("2024-02-29 00:00:00:2024-02-29 00:00:00:2024-03-29 22:00:00:2024-04-01"),
                    rows(s, "SELECT DATE '2024-01-31' + INTERVAL '1' MONTH, DATE '2024-03-31' - INTERVAL '1' MONTH, "
                            + "DATE '2024-03-31' - INTERVAL '1 day 2 hours', DATE '2024-03-31' + 1"));
            assertEquals(List.of("1.5:2:86401.5"), rows(s, "SELECT date_part('second', TIMESTAMP '1970-01-02 "
                    + "00:00:01.5'), date_part('month', DATE '2024-02-28'), date_part('epoch', TIMESTAMP '1970-01-02 "
                    + "00:00:01.5')"));
            try (ResultSet r = s.executeQuery("SELECT DATE '2024-01-31' + INTERVAL '1' MONTH, DATE '2024-03-31' + 1, "
                    + "date_part('month', DATE '2024-02-28'), extract(month FROM DATE '2024-02-28')")) {
                assertEquals("timestamp", r.getMetaData().getColumnTypeName(1));
                assertEquals("date", r.getMetaData().getColumnTypeName(2));
                assertEquals("float8", r.getMetaData().getColumnTypeName(3));
                assertEquals("numeric", r.getMetaData().getColumnTypeName(4));
            }
        }
    }
}
