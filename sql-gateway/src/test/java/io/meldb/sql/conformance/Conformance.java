package io.meldb.sql.conformance;

import io.meldb.sql.server.EmbeddedGateway;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertThrows;

/** Helpers the conformance tests share: a connection per front end, rows as strings, the SQLState of a failure. */
final class Conformance {
    /** The two front ends every conformance test runs over. */
    static final String PG = "pg";
    static final String MELD = "meld";

    private Conformance() {
    }

    /** A connection over {@code protocol}: pgjdbc on the PostgreSQL port, or MeldDB's JDBC driver (Avatica). */
    static Connection connect(final EmbeddedGateway db, final String protocol) throws SQLException {
        return protocol.equals(PG) ? db.connectPg() : DriverManager.getConnection(db.gateway.meldJdbcUrl());
    }

    /** Every row of the query, its columns joined by ':' (NULL as "null"), read by index. */
    static List<String> rows(final Statement s, final String sql) throws SQLException {
        final List<String> out = new ArrayList<>();
        try (ResultSet r = s.executeQuery(sql)) {
            final int n = r.getMetaData().getColumnCount();
            while (r.next()) {
                final StringBuilder b = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    b.append(i > 1 ? ":" : "").append(r.getString(i));
                }
                out.add(b.toString());
            }
        }
        return out;
    }

    /** The SQLException {@code sql} fails with. */
    static SQLException failure(final Statement s, final String sql) {
        return assertThrows(SQLException.class, () -> s.execute(sql), sql);
    }
}
