package io.meldb.wire.auth;

/** The cluster handshake failed: the server refused this client's secret, or proved none itself. */
public final class ClusterAuthException extends RuntimeException {
    public ClusterAuthException(String message) {
        super(message);
    }
}
