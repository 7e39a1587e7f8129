package io.meldb.sql.client;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;

/**
 * JDBC savepoints in MeldDB's driver: Avatica's protocol has no savepoint requests, so {@code setSavepoint},
 * {@code rollback(Savepoint)} and {@code releaseSavepoint} send SAVEPOINT, ROLLBACK TO SAVEPOINT and RELEASE
 * SAVEPOINT as statements, which the gateway runs on the connection's transaction as PostgreSQL does. An unnamed
 * savepoint gets a name from a per-connection counter, as pgjdbc's do.
 */
final class Savepoints {
    private int next;

    /** Whether {@code name} (a {@link Connection} method) is one this class answers, given its arguments. */
    static boolean handles(final String name, final Object[] args) {
        return name.equals("setSavepoint") || name.equals("releaseSavepoint")
                || (name.equals("rollback") && args != null && args.length == 1);
    }

    Object call(final Connection c, final String name, final Object[] args) throws SQLException {
        switch (name) {
            case "setSavepoint" -> {
                if (c.getAutoCommit()) {
                    throw new SQLException("cannot set a savepoint in auto-commit mode", "25P01");
                }
                final MeldSavepoint sp = args == null || args.length == 0
                        ? new MeldSavepoint(++next, null) : new MeldSavepoint(0, (String) args[0]);
                run(c, "SAVEPOINT " + sp.quoted());
                return sp;
            }
            case "rollback" -> {
                run(c, "ROLLBACK TO SAVEPOINT " + of(args[0]).quoted());
                return null;
            }
            default -> {
                run(c, "RELEASE SAVEPOINT " + of(args[0]).quoted());
                return null;
            }
        }
    }

    private static MeldSavepoint of(final Object savepoint) throws SQLException {
        if (savepoint instanceof MeldSavepoint sp) {
            return sp;
        }
        throw new SQLException("not a savepoint of MeldDB's driver: " + savepoint, "3B001");
    }

    private static void run(final Connection c, final String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** A savepoint with a name (given, or made from its id). */
    private record MeldSavepoint(int id, String givenName) implements Savepoint {
        @Override
        public int getSavepointId() throws SQLException {
            if (givenName != null) {
                throw new SQLException("a named savepoint has no id", "3B001");
            }
            return id;
        }

        @Override
        public String getSavepointName() throws SQLException {
            if (givenName == null) {
                throw new SQLException("an unnamed savepoint has no name", "3B001");
            }
            return givenName;
        }

        /** The savepoint's name as a quoted identifier. */
        String quoted() {
            final String name = givenName != null ? givenName : "meldb_savepoint_" + id;
            return '"' + name.replace("\"", "\"\"") + '"';
        }
    }
}
