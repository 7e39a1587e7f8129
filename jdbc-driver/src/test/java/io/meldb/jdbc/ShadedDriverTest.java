package io.meldb.jdbc;

import io.meldb.sql.server.Gateway;
import io.meldb.sql.server.TxnRouter;
import io.meldb.txn.EmbeddedNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Driver;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The driver as a user gets it: the one jar this module builds, alone in a fresh class loader (over the JDK's
 * platform loader, so not even the test's classpath shows through), registers MeldDB's driver through
 * {@code META-INF/services}, connects to a real gateway, runs statements and reads metadata.
 */
@Timeout(120)
class ShadedDriverTest {
    private static Path dataDir;
    private static EmbeddedNode node;
    private static Gateway gateway;

    @BeforeAll
    static void start() throws IOException {
        dataDir = Files.createTempDirectory("meldb-jdbc-test");
        node = EmbeddedNode.start(dataDir);
        gateway = Gateway.start(new TxnRouter(List.of(node.txnService())), 0);
    }

    @AfterAll
    static void stop() throws IOException {
        try {
            if (gateway != null) {
                gateway.close();
            }
        } finally {
            if (node != null) {
                node.close();
            }
            try (Stream<Path> paths = Files.walk(dataDir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static Path jar() {
        final Path jar = Path.of(System.getProperty("meldb.jdbc.jar", "target/meldb-jdbc.jar"));
        assertTrue(Files.isRegularFile(jar), "the shaded jar is built before this test runs: " + jar);
        return jar;
    }

    /** The drivers {@code loader} registers through META-INF/services, made by that loader itself. */
    private static List<Driver> driversOf(final ClassLoader loader) {
        final List<Driver> drivers = new ArrayList<>();
        for (Driver d : ServiceLoader.load(Driver.class, loader)) {
            if (d.getClass().getClassLoader() == loader) {
                drivers.add(d);
            }
        }
        return drivers;
    }

    @Test
    void theJarAloneRegistersMeldDbsDriverWhichConnectsRunsStatementsAndReadsMetadata() throws Exception {
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar().toUri().toURL()},
                ClassLoader.getPlatformClassLoader())) {
            final List<Driver> drivers = driversOf(loader);
            assertEquals(1, drivers.size(), "exactly MeldDB's driver is registered, not Avatica's: " + drivers);
            final Driver driver = drivers.get(0);
            assertEquals("io.meldb.sql.client.MeldDriver", driver.getClass().getName());
            final String url = gateway.meldJdbcUrl();
            assertTrue(driver.acceptsURL(url));
            assertFalse(driver.acceptsURL("jdbc:avatica:remote:url=http://localhost:1"));
            try (Connection c = driver.connect(url, new Properties()); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE shaded_item (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL)");
                assertEquals(2, s.executeUpdate("INSERT INTO shaded_item VALUES (1, 'one'), (2, 'two')"));
                try (PreparedStatement p = c.prepareStatement("SELECT name FROM shaded_item WHERE id = ?")) {
                    p.setInt(1, 2);
                    try (ResultSet rs = p.executeQuery()) {
                        assertTrue(rs.next());
                        assertEquals("two", rs.getString(1));
                    }
                }
                final SQLException e = assertThrows(SQLException.class,
                        () -> s.executeUpdate("INSERT INTO shaded_item VALUES (1, 'again')"));
                assertEquals("23505", e.getSQLState(), e.getMessage());

                final DatabaseMetaData md = c.getMetaData();
                assertEquals("MeldDB", md.getDatabaseProductName());
                try (ResultSet rs = md.getTables(null, null, "shaded_item", null)) {
                    assertTrue(rs.next(), "getTables finds the table");
                    assertEquals("shaded_item", rs.getString("TABLE_NAME"));
                }
                final List<String> columns = new ArrayList<>();
                try (ResultSet rs = md.getColumns(null, null, "shaded_item", null)) {
                    while (rs.next()) {
                        columns.add(rs.getString("COLUMN_NAME") + " " + rs.getString("TYPE_NAME"));
                    }
                }
                assertEquals(List.of("id INTEGER", "name VARCHAR"), columns);
                try (ResultSet rs = md.getPrimaryKeys(null, null, "shaded_item")) {
                    assertTrue(rs.next(), "getPrimaryKeys reaches the gateway's catalog");
                    assertEquals("shaded_item_pkey", rs.getString("PK_NAME"));
                }
                final SQLException prepare = assertThrows(SQLException.class,
                        () -> c.prepareStatement("SELECT * FROM shaded_nowhere"));
                assertEquals("42P01", prepare.getSQLState());
                assertTrue(prepare.getMessage().contains("shaded_nowhere"), prepare.getMessage());
            }
        }
    }

    @Test
    void theJarHoldsOnlyTheDriverAndLibrariesRelocatedUnderItsOwnPackage() throws IOException {
        final List<String> foreign = new ArrayList<>();
        try (JarFile jar = new JarFile(jar().toFile())) {
            jar.stream().map(e -> e.getName()).filter(n -> n.endsWith(".class"))
                    .filter(n -> !n.startsWith("io/meldb/sql/client/") && !n.startsWith("io/meldb/jdbc/shaded/")
                            && !n.equals("io/meldb/sql/MeldVersion.class")
                            // the wire protocol names its messages by these classes' names
                            && !n.startsWith("org/apache/calcite/avatica/proto/"))
                    .forEach(foreign::add);
            assertNotNull(jar.getEntry("io/meldb/jdbc/shaded/avatica/remote/Driver.class"));
        }
        assertEquals(List.of(), foreign, "classes that could clash with the user's own libraries");
    }

    @Test
    void withoutItsLibrariesTheDriverStillRegistersAndSaysWhatIsMissing() throws Exception {
        final Path classes = Path.of(System.getProperty("meldb.gateway.classes", "../sql-gateway/target/classes"));
        assertTrue(Files.isDirectory(classes), classes.toString());
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                ClassLoader.getPlatformClassLoader())) {
            final List<Driver> drivers = driversOf(loader);
            assertEquals(1, drivers.size(), drivers.toString());
            final SQLException e = assertThrows(SQLException.class,
                    () -> drivers.get(0).connect(gateway.meldJdbcUrl(), new Properties()));
            assertEquals("08001", e.getSQLState());
            assertTrue(e.getMessage().contains("org.apache.calcite.avatica:avatica-core")
                    && e.getMessage().contains("io.meldb:meldb-jdbc"), e.getMessage());
        }
    }
}
