package io.meldb.sql.tools;

import io.meldb.sql.server.EmbeddedGateway;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationState;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Flyway, unchanged, migrating a MeldDB over PostgreSQL's JDBC driver: versioned migrations with tables, a SERIAL
 * column, a CHECK, indexes, a unique index and an ALTER TABLE ... ADD CONSTRAINT UNIQUE; then {@code info} and
 * {@code validate}, and a second migrate that finds nothing to do. Flyway's PostgreSQL support sends advisory
 * locks, {@code SET ROLE}, search_path and catalog queries around the migrations: MeldDB answers them.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FlywayMigrateTest {
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

    private static Flyway flyway() {
        return Flyway.configure()
                .dataSource(db.gateway.pgJdbcUrl(), "test", "")
                .locations("classpath:io/meldb/sql/tools/flyway")
                // Flyway's default holds a transaction open on its schema-history connection (for a transactional
                // advisory lock) while another connection runs the migration's DDL; in MeldDB every statement of a
                // serializable transaction reads the whole catalog, so that DDL aborts the open transaction (40001).
                // Session-level locks keep Flyway's own connections from colliding (docs/sql.md)
                .configuration(java.util.Map.of("flyway.postgresql.transactional.lock", "false"))
                .load();
    }

    @Test
    void migratesThenReportsAndValidatesThenFindsNothingToDo() throws SQLException {
        final MigrateResult first = flyway().migrate();
        assertTrue(first.success);
        assertEquals(3, first.migrationsExecuted);
        assertEquals("3", first.targetSchemaVersion);

        final MigrationInfo[] info = flyway().info().all();
        assertEquals(3, info.length);
        for (MigrationInfo m : info) {
            assertEquals(MigrationState.SUCCESS, m.getState(), m.getVersion() + " " + m.getDescription());
        }
        assertEquals("unique email", info[2].getDescription());
        flyway().validate();

        final MigrateResult again = flyway().migrate();
        assertTrue(again.success);
        assertEquals(0, again.migrationsExecuted, "nothing left to migrate");

        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            assertEquals(List.of("1 Ada 19.75"), rows(s.executeQuery(
                    "SELECT c.id, c.name, SUM(p.amount) FROM customer c JOIN purchase p ON p.customer_id = c.id "
                            + "GROUP BY c.id, c.name")));
            final SQLException dup = assertThrows(SQLException.class, () -> s.executeUpdate(
                    "INSERT INTO customer (id, email, name) VALUES (2, 'ada@example.org', 'Other Ada')"));
            assertEquals("23505", dup.getSQLState());
            assertTrue(dup.getMessage().contains("customer_email_key"), dup.getMessage());
            final SQLException check = assertThrows(SQLException.class, () -> s.executeUpdate(
                    "INSERT INTO purchase (customer_id, amount) VALUES (1, -1)"));
            assertEquals("23514", check.getSQLState());
            assertEquals(List.of("1", "2", "3"), rows(s.executeQuery(
                    "SELECT \"version\" FROM flyway_schema_history WHERE success ORDER BY installed_rank")));
        }
    }

    private static List<String> rows(final ResultSet rs) throws SQLException {
        final List<String> out = new ArrayList<>();
        try (rs) {
            final int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                final StringBuilder b = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    b.append(i == 1 ? "" : " ").append(rs.getString(i));
                }
                out.add(b.toString());
            }
        }
        return out;
    }
}
