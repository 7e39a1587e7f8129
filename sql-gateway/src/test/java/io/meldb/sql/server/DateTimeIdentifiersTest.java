package io.meldb.sql.server;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

class DateTimeIdentifiersTest {

    @Test
    void quotesTheWordsWhereTheyAreColumnNames() {
        assertEquals("SELECT \"date\", \"time\", \"timestamp\" FROM t WHERE \"date\" > DATE '2024-01-01'",
                DateTimeIdentifiers.quote("SELECT date, time, timestamp FROM t WHERE date > DATE '2024-01-01'"));
        assertEquals("INSERT INTO t (id, \"date\") VALUES (1, DATE '2024-01-01')",
                DateTimeIdentifiers.quote("INSERT INTO t (id, date) VALUES (1, DATE '2024-01-01')"));
        assertEquals("UPDATE t SET \"time\" = TIME '10:00:00' WHERE id = 1",
                DateTimeIdentifiers.quote("UPDATE t SET time = TIME '10:00:00' WHERE id = 1"));
        assertEquals("SELECT x AS \"date\" FROM t ORDER BY \"Date\"",
                DateTimeIdentifiers.quote("SELECT x AS date FROM t ORDER BY \"Date\""));
    }

    @Test
    void leavesLiteralsTypesCastsZonesAndStringsAlone() {
        for (String sql : new String[] {
            "SELECT CAST(x AS DATE), CAST(y AS TIMESTAMP(3)), CAST(z AS TIMESTAMP WITH TIME ZONE) FROM t",
            "SELECT TIMESTAMP '2024-01-01 00:00:00', x AT TIME ZONE 'UTC' FROM t",
            "SELECT 'date', \"time\" FROM t -- date\n",
            "SELECT CURRENT_DATE, CURRENT_TIMESTAMP, LOCALTIME FROM t",
            "SELECT 1",
        }) {
            assertEquals(sql, DateTimeIdentifiers.quote(sql));
        }
        final String none = "SELECT a FROM b";
        assertSame(none, DateTimeIdentifiers.quote(none));
        assertEquals("SELECT CAST(\"date\" AS DATE) FROM t",
                DateTimeIdentifiers.quote("SELECT CAST(date AS DATE) FROM t"));
    }
}
