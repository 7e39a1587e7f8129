package io.meldb.txn.client;

import java.time.Duration;
import java.util.Objects;

/** Where and how a {@link TxnRpcClient} connects; fluent setters with defaults for a local server. */
public final class TxnRpcClientOptions {
    private String host = "127.0.0.1";
    private int port;
    private Duration requestTimeout = Duration.ofSeconds(30);
    private Duration connectTimeout = Duration.ofSeconds(5);
    private int ioThreads = 1;
    private int maxFrameLength = 64 << 20;
    private io.meldb.wire.auth.ClusterSecret clusterSecret;
    private Duration keepaliveInterval = Duration.ofSeconds(30);

    public static TxnRpcClientOptions to(String host, int port) {
        return new TxnRpcClientOptions().host(host).port(port);
    }

    public String host() {
        return host;
    }

    public TxnRpcClientOptions host(String host) {
        this.host = Objects.requireNonNull(host);
        return this;
    }

    public int port() {
        return port;
    }

    public TxnRpcClientOptions port(int port) {
        this.port = port;
        return this;
    }

    /**
     * A request unanswered after this long fails with {@link io.meldb.txn.api.TxnError#TIMEOUT}. It covers BEGIN's
     * admission wait and COMMIT's wait for meld, so keep it above the server's admission wait.
     */
    public Duration requestTimeout() {
        return requestTimeout;
    }

    public TxnRpcClientOptions requestTimeout(Duration requestTimeout) {
        if (requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("request timeout must be positive: " + requestTimeout);
        }
        this.requestTimeout = requestTimeout;
        return this;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public TxnRpcClientOptions connectTimeout(Duration connectTimeout) {
        this.connectTimeout = Objects.requireNonNull(connectTimeout);
        return this;
    }

    /** I/O threads of the client's event loop group. */
    public int ioThreads() {
        return ioThreads;
    }

    public TxnRpcClientOptions ioThreads(int ioThreads) {
        this.ioThreads = ioThreads;
        return this;
    }

    /** Largest answer frame accepted; a larger one fails its request with TOO_LARGE. */
    public int maxFrameLength() {
        return maxFrameLength;
    }

    public TxnRpcClientOptions maxFrameLength(int maxFrameLength) {
        this.maxFrameLength = maxFrameLength;
        return this;
    }

    /** The cluster secret proven to the server on every connection; null for a server that takes anyone. */
    public io.meldb.wire.auth.ClusterSecret clusterSecret() {
        return clusterSecret;
    }

    public TxnRpcClientOptions clusterSecret(io.meldb.wire.auth.ClusterSecret secret) {
        this.clusterSecret = secret;
        return this;
    }

    /** After this long without sending, the client sends STATUS, so the server's idle timeout spares a quiet connection. */
    public Duration keepaliveInterval() {
        return keepaliveInterval;
    }

    public TxnRpcClientOptions keepaliveInterval(Duration interval) {
        this.keepaliveInterval = java.util.Objects.requireNonNull(interval);
        return this;
    }
}
