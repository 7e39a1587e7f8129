package io.meldb.sql.client;

import java.lang.reflect.Method;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The {@code DatabaseMetaData} calls that Avatica's protocol has no request for, which Avatica's client would answer
 * itself with no rows (getPrimaryKeys, getIndexInfo, getImportedKeys, getExportedKeys): sent to the gateway as a
 * statement that its catalog answers (io.meldb.sql.server.MetaDataRequest reads it). Arguments are URL-encoded, {@code ~} stands for null.
 */
final class MetaDataQueries {
    private static final String PREFIX = "/* meldb */ METADATA ";

    private MetaDataQueries() {
    }

    /** Whether this class answers {@code method}. */
    static boolean answers(final Method method) {
        final Class<?>[] p = method.getParameterTypes();
        return switch (method.getName()) {
            case "getPrimaryKeys", "getImportedKeys", "getExportedKeys" -> p.length == 3;
            case "getIndexInfo" -> p.length == 5;
            default -> false;
        };
    }

    /** The result of {@code method} (one {@link #answers} accepts), run on {@code connection} (the driver's proxy). */
    static ResultSet run(final Connection connection, final Method method, final Object[] args) throws SQLException {
        final StringBuilder sql = new StringBuilder(PREFIX).append(method.getName());
        // getIndexInfo's last argument (approximate) changes nothing: MeldDB reports no statistics
        final int n = method.getName().equals("getIndexInfo") ? 4 : args.length;
        for (int i = 0; i < n; i++) {
            final Object a = args[i];
            sql.append(' ').append(a == null ? "~" : URLEncoder.encode(String.valueOf(a), StandardCharsets.UTF_8));
        }
        final Statement s = connection.createStatement();
        try {
            final ResultSet rs = s.executeQuery(sql.toString());
            s.closeOnCompletion();
            return rs;
        } catch (SQLException | RuntimeException e) {
            s.close();
            throw e;
        }
    }
}
