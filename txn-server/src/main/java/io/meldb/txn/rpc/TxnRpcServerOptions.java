package io.meldb.txn.rpc;

import io.meldb.txn.client.TxnRpcClient;
import io.meldb.wire.auth.ClusterAuthServer;
import io.meldb.wire.auth.ClusterSecret;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Duration;

import java.util.Objects;

/** Where and how a {@link TxnRpcServer} listens; fluent setters with defaults for a local server. */
public final class TxnRpcServerOptions {
    private String host = "127.0.0.1";
    private int port;
    private int ioThreads = Math.max(2, Math.min(8, Runtime.getRuntime().availableProcessors()));
    private int beginThreads = 4;
    private int beginQueue = 1024;
    private int maxFrameLength = 16 << 20;
    private int maxTransactionsPerConnection = 1024;
    private MeterRegistry meterRegistry;
    private ClusterSecret clusterSecret;
    private Duration handshakeTimeout = ClusterAuthServer.DEFAULT_HANDSHAKE_TIMEOUT;
    private Duration idleTimeout = Duration.ofSeconds(120);
    private long maxInflightFrameBytes = 64L << 20;

    public static TxnRpcServerOptions on(String host, int port) {
        return new TxnRpcServerOptions().host(host).port(port);
    }

    public String host() {
        return host;
    }

    public TxnRpcServerOptions host(String host) {
        this.host = Objects.requireNonNull(host);
        return this;
    }

    /** 0 picks a free port ({@link TxnRpcServer#port()} tells which). */
    public int port() {
        return port;
    }

    public TxnRpcServerOptions port(int port) {
        this.port = port;
        return this;
    }

    /** Event-loop threads serving connections. */
    public int ioThreads() {
        return ioThreads;
    }

    public TxnRpcServerOptions ioThreads(int ioThreads) {
        this.ioThreads = ioThreads;
        return this;
    }

    /**
     * Threads that run {@code TxnService.begin}, which may wait for admission; event loops never wait for it.
     * BEGINs beyond the threads queue up to {@link #beginQueue()}, and beyond that are answered OVERLOADED.
     */
    public int beginThreads() {
        return beginThreads;
    }

    public TxnRpcServerOptions beginThreads(int beginThreads) {
        this.beginThreads = beginThreads;
        return this;
    }

    public int beginQueue() {
        return beginQueue;
    }

    public TxnRpcServerOptions beginQueue(int beginQueue) {
        this.beginQueue = beginQueue;
        return this;
    }

    /**
     * Largest frame taken or sent (bytes after the length field). A larger request is answered TOO_LARGE; a scan
     * whose answer would be larger is answered TOO_LARGE too (scan with a limit).
     */
    public int maxFrameLength() {
        return maxFrameLength;
    }

    public TxnRpcServerOptions maxFrameLength(int maxFrameLength) {
        this.maxFrameLength = maxFrameLength;
        return this;
    }

    /**
     * Transactions one connection may have open, beginning or committing at once; a BEGIN beyond it is answered
     * OVERLOADED. Bounds what one client can hold on the server.
     */
    public int maxTransactionsPerConnection() {
        return maxTransactionsPerConnection;
    }

    public TxnRpcServerOptions maxTransactionsPerConnection(int maxTransactionsPerConnection) {
        this.maxTransactionsPerConnection = maxTransactionsPerConnection;
        return this;
    }

    /** Where request counts and latencies go (by op and error code); null for none. */
    public MeterRegistry meterRegistry() {
        return meterRegistry;
    }

    public TxnRpcServerOptions meterRegistry(MeterRegistry meterRegistry) {
        this.meterRegistry = meterRegistry;
        return this;
    }

    /** The secret every client must prove before its first request; null (the default) takes anyone. */
    public ClusterSecret clusterSecret() {
        return clusterSecret;
    }

    public TxnRpcServerOptions clusterSecret(ClusterSecret secret) {
        this.clusterSecret = secret;
        return this;
    }

    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    public TxnRpcServerOptions handshakeTimeout(Duration timeout) {
        this.handshakeTimeout = Objects.requireNonNull(timeout);
        return this;
    }

    /**
     * A connection from which nothing was read for this long is closed (aborting its open transactions), a
     * half-sent frame included; {@link TxnRpcClient} keeps quiet connections alive well within it. Zero: never.
     */
    public Duration idleTimeout() {
        return idleTimeout;
    }

    public TxnRpcServerOptions idleTimeout(Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("the idle timeout must not be negative, got " + timeout);
        }
        this.idleTimeout = timeout;
        return this;
    }

    /**
     * Bytes of partly received frames (above 64 KiB each) the server holds for all connections together; a
     * connection whose frame finds no room stops being read until there is ({@link io.meldb.wire.FrameBudget}).
     */
    public long maxInflightFrameBytes() {
        return maxInflightFrameBytes;
    }

    public TxnRpcServerOptions maxInflightFrameBytes(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("--max-inflight-frame-bytes must be positive, got " + bytes);
        }
        this.maxInflightFrameBytes = bytes;
        return this;
    }
}
