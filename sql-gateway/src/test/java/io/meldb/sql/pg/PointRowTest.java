package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The point read's cursor reads integer columns in place (from the key up to its first column of variable width,
 * from the payload past columns of any width, NULL or not, and not past the end of a row written before ADD
 * COLUMN), and payload text as its UTF-8 bytes: every column of every row read by primary key through the fast path, in binary and in text, must be
 * what the Calcite path ({@code SET meldb.fast_path = off}) answers.
 */
class PointRowTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() throws SQLException {
        db = new EmbeddedGateway();
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            // key: an integer before a varchar, then one after it (read by decoding); payload: mixed widths, NULLs
            s.execute("CREATE TABLE pr_mixed (a SMALLINT, v VARCHAR(10), b BIGINT, s VARCHAR(20), i INTEGER, "
                    + "d DECIMAL(8, 2), n SMALLINT, t BOOLEAN, PRIMARY KEY (a, v, b))");
            for (int k = 0; k < 6; k++) {
                s.execute("INSERT INTO pr_mixed VALUES (" + (k - 3) + ", 'k" + k + "', " + (Long.MAX_VALUE - k) + ", "
                        + (k % 2 == 0 ? "NULL" : "'" + "é✓".repeat(k * 2) + "'") + ", "
                        + (k % 3 == 0 ? "NULL" : String.valueOf(Integer.MIN_VALUE + k)) + ", " + (k * 1.5) + ", "
                        + (k == 4 ? "NULL" : String.valueOf(-32768 + k)) + ", " + (k % 2 == 0) + ")");
            }
            // rows written before ADD COLUMN have shorter payloads: the new column reads its DEFAULT
            s.execute("CREATE TABLE pr_added (id INTEGER PRIMARY KEY, x BIGINT)");
            s.execute("INSERT INTO pr_added VALUES (1, 10), (2, NULL)");
            s.execute("ALTER TABLE pr_added ADD COLUMN y INTEGER DEFAULT 7");
            s.execute("INSERT INTO pr_added VALUES (3, 30, 33)");
        }
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void integerColumnsReadInPlaceAnswerAsCalciteDoes(final boolean binary) throws SQLException {
        try (Connection fast = db.connectPg("prepareThreshold=1", "binaryTransfer=" + binary);
             Connection slow = db.connectPg("prepareThreshold=1", "binaryTransfer=" + binary)) {
            try (Statement s = slow.createStatement()) {
                s.execute("SET meldb.fast_path = off");
            }
            for (int k = 0; k < 6; k++) {
                final String sql = "SELECT a, v, b, s, i, d, n, t, b, a FROM pr_mixed WHERE a = ? AND v = ? AND b = ?";
                final Object[] key = {k - 3, "k" + k, Long.MAX_VALUE - k};
                assertEquals(rows(slow, sql, key), rows(fast, sql, key), "row " + k);
            }
            for (int id = 1; id <= 4; id++) {
                final String sql = "SELECT y, x, id FROM pr_added WHERE id = ?";
                assertEquals(rows(slow, sql, id), rows(fast, sql, id), "id " + id);
            }
        }
    }

    /** Every row's columns as strings, read twice (the second execution reuses the cursor). */
    private static List<String> rows(final Connection c, final String sql, final Object... key) throws SQLException {
        final List<String> out = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement(sql)) {
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < key.length; i++) {
                    p.setObject(i + 1, key[i]);
                }
                try (ResultSet r = p.executeQuery()) {
                    while (r.next()) {
                        final StringBuilder row = new StringBuilder();
                        for (int col = 1; col <= r.getMetaData().getColumnCount(); col++) {
                            row.append(r.getString(col)).append('|');
                        }
                        out.add(row.toString());
                    }
                }
            }
        }
        return out;
    }
}
