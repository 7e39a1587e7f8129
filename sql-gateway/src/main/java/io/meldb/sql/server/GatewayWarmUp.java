package io.meldb.sql.server;

import org.apache.calcite.avatica.ColumnMetaData;
import org.apache.calcite.avatica.ConnectionPropertiesImpl;
import org.apache.calcite.avatica.Meta;
import org.apache.calcite.avatica.remote.TypedValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Runs every kind of statement once through the gateway before it serves, so that the first client does not wait
 * for the warm-up. Without it the first INSERT of a fresh gateway took a second (up to 20 s on a loaded machine):
 * Calcite loads and initializes a few thousand classes, generates its metadata handlers and compiles the plan with
 * Janino, all on first use, and all of it is shared by the JVM. The statements run through a {@link MeldMeta} of
 * their own (so the gateway's metrics do not count them), in one transaction on a schema of their own that is
 * rolled back, so nothing reaches the log or the catalog; a failure only costs the warm-up.
 */
final class GatewayWarmUp {
    private static final Logger LOG = LoggerFactory.getLogger(GatewayWarmUp.class);

    private GatewayWarmUp() {
    }

    static void run(final TxnRouter router) {
        final long started = System.nanoTime();
        final String schema = "MELDB_WARM_UP_" + UUID.randomUUID().toString().replace("-", "").toUpperCase();
        final String table = schema + ".T";
        final Meta.ConnectionHandle ch = new Meta.ConnectionHandle("warm-up-" + schema);
        try {
            final MeldMeta meta = new MeldMeta(new SqlEngine(router, SqlMetrics.unexported()));
            meta.openConnection(ch, Map.of());
            try {
                meta.connectionSync(ch, new ConnectionPropertiesImpl(false, false, null, null, null));
                final Meta.StatementHandle sh = meta.createStatement(ch);
                for (String sql : List.of(
                        "CREATE SCHEMA " + schema,
                        "CREATE TABLE " + table + " (id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL, amount BIGINT)",
                        "CREATE INDEX " + schema + ".T_NAME ON " + table + " (name)",
                        "INSERT INTO " + table + " VALUES (1, 'a', 10), (2, 'b', 20)",
                        "SELECT * FROM " + table,
                        "SELECT * FROM " + table + " WHERE id = 1",
                        "SELECT name, SUM(amount) FROM " + table + " WHERE name = 'a' GROUP BY name ORDER BY name",
                        "UPDATE " + table + " SET amount = amount + 1 WHERE id = 1",
                        "DELETE FROM " + table + " WHERE id = 2")) {
                    meta.prepareAndExecute(sh, sql, -1, -1, null);
                }
                final Meta.StatementHandle prepared = meta.prepare(ch, "SELECT * FROM " + table + " WHERE id = ?", -1);
                meta.execute(prepared, List.of(TypedValue.ofLocal(ColumnMetaData.Rep.INTEGER, 1)), -1);
                meta.closeStatement(prepared);
                meta.closeStatement(sh);
            } finally {
                meta.rollback(ch);
                meta.closeConnection(ch);
            }
            LOG.info("warmed up the SQL planner in {} ms", (System.nanoTime() - started) / 1_000_000);
        } catch (Exception e) {
            LOG.warn("the SQL warm-up failed (the first statements will be slower): {}", e.toString());
        }
    }
}
