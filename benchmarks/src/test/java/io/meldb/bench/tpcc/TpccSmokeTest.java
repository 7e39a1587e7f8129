package io.meldb.bench.tpcc;

import io.meldb.sql.server.Gateway;
import io.meldb.sql.server.TxnRouter;
import io.meldb.launcher.EmbeddedNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The order-entry benchmark's transactions against an embedded MeldDB through pgjdbc: a tiny load, then about a
 * second of each transaction type on its own with two terminals on two warehouses, and TPC-C's consistency
 * conditions after. Proves the SQL of every transaction runs on MeldDB and keeps the database consistent; it measures
 * nothing.
 */
@Tag("slow")
@Timeout(180)
class TpccSmokeTest {
    private static final TpccScale SCALE = new TpccScale(2, 200, 30);

    @TempDir
    static Path dir;
    private static EmbeddedNode node;
    private static Gateway gateway;
    private static final Properties PROPS = new Properties();

    @BeforeAll
    static void start() throws Exception {
        node = EmbeddedNode.start(dir);
        gateway = Gateway.start(new TxnRouter(List.of(node.txnService())), 0);
        PROPS.setProperty("user", "tpcc");
        try (Connection c = open()) {
            TpccSchema.create(c);
            TpccSchema.load(c, SCALE, 500);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (gateway != null) {
                gateway.close();
            }
        } finally {
            if (node != null) {
                node.close();
            }
        }
    }

    private static Connection open() throws SQLException {
        return DriverManager.getConnection(gateway.pgJdbcUrl(), PROPS);
    }

    @Test
    void theLoadFillsEveryTableToScale() throws SQLException {
        try (Connection c = open(); Statement s = c.createStatement()) {
            assertEquals(SCALE.items(), count(s, "item"));
            assertEquals((long) SCALE.items() * SCALE.warehouses(), count(s, "stock"));
            assertEquals(10L * SCALE.warehouses() * SCALE.customersPerDistrict(), count(s, "customer"));
            assertTrue(count(s, "order_line") >= 5L * count(s, "orders"));
            assertEquals(TpccConsistency.check(c), List.of());
        }
    }

    @Test
    void everyTransactionTypeCommitsAndTheDatabaseStaysConsistent() throws Exception {
        for (TxnType type : TxnType.values()) {
            for (boolean apart : new boolean[] {false, true}) {
                if (apart && type != TxnType.PAYMENT) {
                    continue;
                }
                final TpccWindow.Result r = TpccWindow.run(TpccSmokeTest::open, SCALE, 2, 2, apart, 0, 0.8, 7, type);
                assertNull(r.error(), type + ": " + r.error());
                final TypeStats s = r.byType().get(type);
                assertTrue(s.commits > 0, type + " committed nothing");
                assertEquals(s.commits + s.rollbacks, r.commits(), "only " + type + " ran");
            }
        }
        try (Connection c = open()) {
            assertEquals(List.of(), TpccConsistency.check(c));
        }
    }

    @Test
    void theStandardMixRunsEveryType() throws Exception {
        final TpccWindow.Result r = TpccWindow.run(TpccSmokeTest::open, SCALE, 1, 2, false, 0, 1.5, 3, null);
        assertNull(r.error(), r.error());
        assertTrue(r.byType().get(TxnType.NEW_ORDER).commits > 0);
        assertTrue(r.byType().get(TxnType.PAYMENT).commits > 0);
        try (Connection c = open()) {
            assertEquals(List.of(), TpccConsistency.check(c));
        }
    }

    private static long count(final Statement s, final String table) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
