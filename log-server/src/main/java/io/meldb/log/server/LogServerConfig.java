package io.meldb.log.server;

import io.meldb.log.ConfigBlock;
import io.meldb.wire.auth.ClusterAuthServer;
import io.meldb.wire.auth.ClusterSecret;
import io.meldb.log.replication.ReplicationOptions;
import io.meldb.log.storage.StoreOptions;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/** Everything {@link LogServer#start} needs; fluent setters, defaults for a local server. */
public final class LogServerConfig {
    /** Hyder II §6.3 used 8K blocks for the log service and for Hyder II. */
    public static final int DEFAULT_BLOCK_SIZE = 8192;

    private String host = "127.0.0.1";
    private int port;
    private int metricsPort;
    private int blockSize = DEFAULT_BLOCK_SIZE;
    private int ioThreads = defaultIoThreads();
    private int readThreads = 2;
    private int maxAppendsInFlightPerConnection = 1024;
    private long maxAppendBytesInStore = 256L << 20;
    private int writeBufferLowWaterMark = 512 * 1024;
    private int writeBufferHighWaterMark = 1024 * 1024;
    private StoreOptions store;
    private ClusterSecret clusterSecret;
    private Duration handshakeTimeout = ClusterAuthServer.DEFAULT_HANDSHAKE_TIMEOUT;
    private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
    private ReplicationOptions replication;

    /** A connection from which nothing was read for this long is closed; MeldDB's clients keep alive well within it. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(120);

    /**
     * Half the processors: besides its event loops the server runs the store's writer and page-toucher threads,
     * which need a core between them at full speed. On the 2-core machine of our figures, one event loop instead of
     * two gave the same peak and a p99 at half load of about 5 ms instead of about 8 ms (LogAppendBenchmark,
     * {@code --server-io-threads 1} vs {@code 2}).
     */
    public static int defaultIoThreads() {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    }

    public static LogServerConfig at(Path dataDir) {
        LogServerConfig c = new LogServerConfig();
        c.store = StoreOptions.at(dataDir);
        return c;
    }

    public String host() {
        return host;
    }

    public LogServerConfig host(String host) {
        this.host = Objects.requireNonNull(host);
        return this;
    }

    /** 0 picks a free port. */
    public int port() {
        return port;
    }

    public LogServerConfig port(int port) {
        this.port = port;
        return this;
    }

    /** Port of {@code /health} and {@code /metrics}; 0 picks a free port, -1 turns the endpoint off. */
    public int metricsPort() {
        return metricsPort;
    }

    public LogServerConfig metricsPort(int metricsPort) {
        this.metricsPort = metricsPort;
        return this;
    }

    /** The only block size this server creates logs with; an existing log with another one is refused at start. */
    public int blockSize() {
        return blockSize;
    }

    public LogServerConfig blockSize(int blockSize) {
        if (blockSize < ConfigBlock.MIN_BLOCK_SIZE || blockSize > ConfigBlock.MAX_BLOCK_SIZE) {
            throw new IllegalArgumentException("block size " + blockSize + " is outside [" + ConfigBlock.MIN_BLOCK_SIZE
                    + ", " + ConfigBlock.MAX_BLOCK_SIZE + "]");
        }
        this.blockSize = blockSize;
        return this;
    }

    public int ioThreads() {
        return ioThreads;
    }

    public LogServerConfig ioThreads(int ioThreads) {
        if (ioThreads < 1) {
            throw new IllegalArgumentException("I/O threads " + ioThreads + " must be at least 1");
        }
        this.ioThreads = ioThreads;
        return this;
    }

    /**
     * Threads that read stored blocks for READ and SUBSCRIBE, so that a read that misses the page cache waits for
     * the disk there instead of holding up an event loop and every append it serves. Each connection uses one.
     */
    public int readThreads() {
        return readThreads;
    }

    public LogServerConfig readThreads(int readThreads) {
        if (readThreads < 1) {
            throw new IllegalArgumentException("read threads " + readThreads + " must be at least 1");
        }
        this.readThreads = readThreads;
        return this;
    }

    /**
     * Bytes of blocks the server hands the store, across all connections, before it stops reading every connection
     * (until half of them are stored): the per-connection limit times the number of connections is not a bound.
     */
    public long maxAppendBytesInStore() {
        return maxAppendBytesInStore;
    }

    public LogServerConfig maxAppendBytesInStore(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("the bytes of blocks waiting for storage (--max-append-bytes-in-store) must be positive, got " + bytes);
        }
        this.maxAppendBytesInStore = bytes;
        return this;
    }

    /** A connection with this many unacknowledged appends stops being read until half of them are acknowledged. */
    public int maxAppendsInFlightPerConnection() {
        return maxAppendsInFlightPerConnection;
    }

    public LogServerConfig maxAppendsInFlightPerConnection(int n) {
        this.maxAppendsInFlightPerConnection = n;
        return this;
    }

    public int writeBufferLowWaterMark() {
        return writeBufferLowWaterMark;
    }

    /**
     * Bytes queued for a connection before it counts as not writable; a subscription stops pushing there, so this
     * bounds what one slow subscriber can hold in server memory.
     */
    public int writeBufferHighWaterMark() {
        return writeBufferHighWaterMark;
    }

    public LogServerConfig writeBufferWaterMarks(int low, int high) {
        this.writeBufferLowWaterMark = low;
        this.writeBufferHighWaterMark = high;
        return this;
    }

    public StoreOptions store() {
        return store;
    }

    /** The secret clients must prove before their first request; null (the default) takes anyone. */
    public ClusterSecret clusterSecret() {
        return clusterSecret;
    }

    public LogServerConfig clusterSecret(ClusterSecret secret) {
        this.clusterSecret = secret;
        return this;
    }

    /** How long a new connection may take to prove the cluster secret. */
    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    public LogServerConfig handshakeTimeout(Duration timeout) {
        this.handshakeTimeout = Objects.requireNonNull(timeout);
        return this;
    }

    /** Connections silent for this long are closed (a half-sent frame included); zero turns the timeout off. */
    public Duration idleTimeout() {
        return idleTimeout;
    }

    public LogServerConfig idleTimeout(Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("the idle timeout must not be negative, got " + timeout);
        }
        this.idleTimeout = timeout;
        return this;
    }

    /** How the log is replicated (issue 22); null (the default) is replication factor 1: this server alone. */
    public ReplicationOptions replication() {
        return replication;
    }

    public LogServerConfig replication(ReplicationOptions replication) {
        this.replication = replication;
        return this;
    }
}
