package io.meldb.wire.auth;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a server port requires of its clients: the cluster secret, how long a connection may take to prove it, and
 * the port's protocol (its magic and version, and the ERROR code a refusal carries). Counts the connections it
 * refused and admitted, for the port's metrics. One per listening port; shared by its connections' handlers.
 */
public final class ClusterAuthServer {
    /** How long a new connection may take to complete the handshake before it is closed. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

    private final ClusterSecret secret;
    private final String portName;
    private final int magic;
    private final byte version;
    private final short refusalCode;
    private final long handshakeTimeoutNanos;
    private final LongAdder refused = new LongAdder();
    private final LongAdder admitted = new LongAdder();

    /**
     * @param portName    names the port in messages ("the log server")
     * @param refusalCode the protocol's error code an ERROR refusal carries
     */
    public ClusterAuthServer(ClusterSecret secret, String portName, int magic, byte version, short refusalCode,
                             Duration handshakeTimeout) {
        this.secret = Objects.requireNonNull(secret);
        this.portName = portName;
        this.magic = magic;
        this.version = version;
        this.refusalCode = refusalCode;
        this.handshakeTimeoutNanos = handshakeTimeout.toNanos();
    }

    /** A handler for one new connection; put it first in the pipeline. */
    public ClusterAuthServerHandler newHandler() {
        return new ClusterAuthServerHandler(this);
    }

    /** Connections refused (wrong or no secret, a broken or slow handshake) since the server started. */
    public long refused() {
        return refused.sum();
    }

    public long admitted() {
        return admitted.sum();
    }

    ClusterSecret secret() {
        return secret;
    }

    String portName() {
        return portName;
    }

    int magic() {
        return magic;
    }

    byte version() {
        return version;
    }

    short refusalCode() {
        return refusalCode;
    }

    long handshakeTimeoutNanos() {
        return handshakeTimeoutNanos;
    }

    void countRefused() {
        refused.increment();
    }

    void countAdmitted() {
        admitted.increment();
    }
}
