package io.meldb.sql.client;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * MeldDB's JDBC driver: Avatica's remote driver (protobuf over HTTP) to a MeldDB gateway, with the errors a JDBC
 * program expects. Avatica's own driver throws an unchecked {@code AvaticaClientRuntimeException} when
 * {@code Connection.commit()} fails (e.g. meld aborted the transaction, SQLState 40001); through this driver every
 * method throws an {@link SQLException} instead, of the subclass its SQLState calls for
 * ({@link java.sql.SQLTransactionRollbackException} for 40001), with the server's message, SQLState and vendor
 * code. See {@link ClientErrors}. A connection outlives a restart of its gateway: see {@link ClientSession}.
 *
 * <p>URLs (registered with {@link DriverManager} through {@code META-INF/services/java.sql.Driver}):
 * <ul>
 *   <li>{@code jdbc:meldb://HOST:PORT} (port defaults to 8765), optionally followed by {@code ;key=value...}</li>
 *   <li>{@code jdbc:meldb:url=http://HOST:PORT[;key=value...]}: Avatica's form, any Avatica remote property</li>
 * </ul>
 * Both use protobuf serialization unless {@code serialization=...} is given.
 */
public final class MeldDriver implements Driver {
    public static final String PREFIX = "jdbc:meldb:";
    public static final int DEFAULT_PORT = 8765;
    private static final String AVATICA_PREFIX = "jdbc:avatica:remote:";
    /** Avatica's property naming its HTTP client class. */
    static final String HTTP_CLIENT_PROPERTY = "httpclient_impl";
    /** Avatica's property naming the factory of its client-side service. */
    static final String FACTORY_PROPERTY = "factory";

    /** Why the driver cannot connect (a library missing from the classpath), or null. */
    private static final String MISSING = DriverDependencies.missing();

    static {
        try {
            DriverManager.registerDriver(new MeldDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Driver avatica = MISSING == null ? DriverDependencies.avatica() : null;

    /** The URL of a gateway for this driver. */
    public static String url(final String host, final int port) {
        return PREFIX + "//" + host + ":" + port;
    }

    @Override
    public boolean acceptsURL(final String url) {
        return url != null && url.startsWith(PREFIX);
    }

    @Override
    public Connection connect(final String url, final Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null; // JDBC: another driver's URL
        }
        final String avaticaUrl = avaticaUrl(url);
        requireDependencies();
        final Properties properties = withHttpClient(avaticaUrl, withCredentials(info)); // reconnects reuse them
        final Connection c;
        try {
            c = avatica.connect(avaticaUrl, properties);
        } catch (RuntimeException e) {
            throw rethrowable(ClientErrors.convert(e), e);
        } catch (SQLException e) {
            throw ClientErrors.specific(e);
        }
        if (c == null) {
            throw new SQLException("Avatica's remote driver refused " + avaticaUrl, "08001");
        }
        return JdbcProxy.connection(new ClientSession(avatica, avaticaUrl, properties, c));
    }

    /**
     * The JDBC {@code user} and {@code password} properties as Avatica's HTTP Basic credentials
     * ({@code authentication=BASIC}, {@code avatica_user}, {@code avatica_password}), unless those are given already.
     * The gateway asks for them when it has users (as the PostgreSQL port does).
     */
    static Properties withCredentials(final Properties info) {
        final Properties p = new Properties();
        if (info != null) {
            p.putAll(info);
        }
        final String user = p.getProperty("user");
        if (user != null && p.getProperty("avatica_user") == null) {
            p.setProperty("authentication", p.getProperty("authentication", "BASIC"));
            p.setProperty("avatica_user", user);
            p.setProperty("avatica_password", p.getProperty("password", ""));
        }
        return p;
    }

    /**
     * {@code properties} with MeldDB's own client: Avatica's {@code factory} set to {@link MeldRemoteService} (its
     * own HTTP client, {@link MeldHttpClient}, and no signatures repeated in EXECUTE), unless a factory or HTTP
     * client is chosen already, the gateway is reached over https (which Avatica's client speaks and MeldDB's does
     * not) or the serialization is not protobuf.
     */
    static Properties withHttpClient(final String avaticaUrl, final Properties properties) {
        final String url = avaticaUrl.toLowerCase(java.util.Locale.ROOT);
        if (properties.getProperty(HTTP_CLIENT_PROPERTY) == null && properties.getProperty(FACTORY_PROPERTY) == null
                && !url.contains(HTTP_CLIENT_PROPERTY + "=") && !url.contains(FACTORY_PROPERTY + "=")
                && url.startsWith("url=http://", AVATICA_PREFIX.length())
                && url.contains("serialization=protobuf")
                && !"json".equalsIgnoreCase(properties.getProperty("serialization"))) {
            properties.setProperty(FACTORY_PROPERTY, MeldRemoteService.Factory.class.getName());
        }
        return properties;
    }

    /**
     * The Avatica remote URL for a MeldDB URL, e.g. {@code jdbc:meldb://h:9000} becomes
     * {@code jdbc:avatica:remote:url=http://h:9000;serialization=PROTOBUF}.
     *
     * @throws SQLException (SQLState 08001) when the URL is not a MeldDB URL one can connect with
     */
    public static String avaticaUrl(final String url) throws SQLException {
        if (url == null || !url.startsWith(PREFIX)) {
            throw badUrl(url, "it does not start with " + PREFIX);
        }
        final String rest = url.substring(PREFIX.length());
        final String properties;
        if (rest.startsWith("//")) {
            final int semi = rest.indexOf(';');
            String address = semi < 0 ? rest.substring(2) : rest.substring(2, semi);
            if (address.endsWith("/")) {
                address = address.substring(0, address.length() - 1);
            }
            if (address.isEmpty() || address.contains("/")) {
                throw badUrl(url, "expected jdbc:meldb://HOST:PORT");
            }
            if (!hasPort(address)) {
                address = address + ":" + DEFAULT_PORT;
            } else {
                final String port = address.substring(address.lastIndexOf(':') + 1);
                if (!port.matches("\\d{1,5}")) {
                    throw badUrl(url, "the port '" + port + "' is not a number");
                }
            }
            properties = "url=http://" + address + (semi < 0 ? "" : rest.substring(semi));
        } else if (rest.regionMatches(true, 0, "url=", 0, 4)) {
            properties = rest;
        } else {
            throw badUrl(url, "expected jdbc:meldb://HOST:PORT or jdbc:meldb:url=http://HOST:PORT");
        }
        final boolean hasSerialization = properties.toLowerCase(java.util.Locale.ROOT).matches(
                "(?s)(.*;)?\\s*serialization\\s*=.*");
        return AVATICA_PREFIX + properties + (hasSerialization ? "" : ";serialization=PROTOBUF");
    }

    private static boolean hasPort(final String address) {
        if (address.startsWith("[")) { // [ipv6]:port
            return address.contains("]:");
        }
        return address.indexOf(':') >= 0;
    }

    private static SQLException badUrl(final String url, final String why) {
        return new SQLException("not a MeldDB JDBC URL: '" + url + "': " + why, "08001");
    }

    private static SQLException rethrowable(final Throwable converted, final RuntimeException original) {
        if (converted instanceof SQLException e) {
            return e;
        }
        throw original;
    }

    private static void requireDependencies() throws SQLException {
        if (MISSING != null) {
            throw new SQLException(MISSING, "08001");
        }
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(final String url, final Properties info) throws SQLException {
        requireDependencies();
        return avatica.getPropertyInfo(avaticaUrl(url), info);
    }

    @Override
    public int getMajorVersion() {
        return io.meldb.sql.MeldVersion.MAJOR;
    }

    @Override
    public int getMinorVersion() {
        return io.meldb.sql.MeldVersion.MINOR;
    }

    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("MeldDB's driver does not use java.util.logging");
    }
}
