package io.meldb.txn.rpc;

import io.micrometer.core.instrument.MeterRegistry;

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
}
