package io.meldb.sql.jdbc;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * Who may use the JDBC endpoint, as on the PostgreSQL port: with users configured, every request carries HTTP Basic
 * credentials of one of them (Avatica's {@code authentication=BASIC;avatica_user=...;avatica_password=...}, or the
 * {@code user}/{@code password} properties of MeldDB's driver); without users, only clients on loopback.
 */
final class JdbcAuth {
    /** The verdict on one request: {@link #OK}, a 401 challenge, or a refusal with its SQLSTATE. */
    record Verdict(boolean ok, boolean challenge, String sqlState, String message) {
    }

    static final Verdict OK = new Verdict(true, false, null, null);
    private static final Verdict CHALLENGE = new Verdict(false, true, null,
            "password authentication is required (user and password properties)");

    private final Map<String, byte[]> users = new HashMap<>();

    /** {@code users}: user name to password; empty trusts loopback clients only. */
    JdbcAuth(final Map<String, String> users) {
        users.forEach((u, p) -> this.users.put(u, p.getBytes(StandardCharsets.UTF_8)));
    }

    /** The verdict on a request from {@code remote} with this {@code Authorization} header (null: none). */
    Verdict check(final SocketAddress remote, final String authorization) {
        if (users.isEmpty()) {
            if (fromLoopback(remote)) {
                return OK;
            }
            return new Verdict(false, false, "28000", "MeldDB trusts only clients on loopback when it has no users; "
                    + "configure users and passwords (--users-file or MELDB_PG_USERS) to connect from " + remote);
        }
        if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return CHALLENGE;
        }
        final String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(authorization.substring(6).trim()),
                    StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return new Verdict(false, false, "28P01", "malformed Basic credentials");
        }
        final int colon = decoded.indexOf(':');
        final String user = colon < 0 ? decoded : decoded.substring(0, colon);
        final byte[] given = (colon < 0 ? "" : decoded.substring(colon + 1)).getBytes(StandardCharsets.UTF_8);
        final byte[] expected = users.get(user);
        // compared in constant time, and against something even for an unknown user
        final boolean ok = MessageDigest.isEqual(expected == null ? new byte[given.length + 1] : expected, given)
                && expected != null;
        return ok ? OK : new Verdict(false, false, "28P01", "password authentication failed for user \"" + user
                + "\"");
    }

    private static boolean fromLoopback(final SocketAddress remote) {
        if (remote instanceof InetSocketAddress a) {
            final InetAddress address = a.getAddress();
            return address != null && address.isLoopbackAddress();
        }
        return false;
    }
}
