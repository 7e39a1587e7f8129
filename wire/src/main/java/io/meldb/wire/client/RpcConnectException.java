package io.meldb.wire.client;

/**
 * A framed-RPC client could not reach its server: the TCP connection failed or timed out, or the cluster handshake
 * was refused or not answered ({@link #handshake()}). Each client turns it into its own error (the log client's
 * {@code LogConnectionException}, the txn client's {@code UNAVAILABLE}) with this message.
 */
public final class RpcConnectException extends RuntimeException {
    private final boolean handshake;

    public RpcConnectException(final String message, final Throwable cause, final boolean handshake) {
        super(message, cause);
        this.handshake = handshake;
    }

    /** True if the connection was made and the cluster handshake then failed. */
    public boolean handshake() {
        return handshake;
    }
}
