package io.meldb.log.client;

import io.meldb.wire.auth.ClusterSecret;
import io.netty.channel.EventLoopGroup;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Where and how a {@link LogClient} (of the Hyder II §5.1 log service) connects; fluent setters with defaults for a local cluster. */
public final class LogClientOptions {
    private String host = "127.0.0.1";
    private int port;
    /** Every replica's address when the log is replicated; null: just {@link #host}:{@link #port}. */
    private List<String> addresses;
    private Duration requestTimeout = Duration.ofSeconds(10);
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration reconnectBackoffMin = Duration.ofMillis(50);
    private Duration reconnectBackoffMax = Duration.ofSeconds(2);
    private int ioThreads = 2;
    private int maxInFlight = 4096;
    private int maxBlockSize = 1 << 20;
    private EventLoopGroup eventLoopGroup;
    private ClusterSecret clusterSecret;
    private Duration keepaliveInterval = Duration.ofSeconds(30);

    public static LogClientOptions to(String host, int port) {
        return new LogClientOptions().host(host).port(port);
    }

    /**
     * A replicated log's servers, {@code host:port,host:port,...} (issue 22): the client connects to the first that
     * answers, follows NOT_LEADER answers to the leader, and moves on to another when its server goes away; each
     * subscription does the same on its own. One address is the same as {@link #to}.
     *
     * @throws IllegalArgumentException naming a malformed address
     */
    public static LogClientOptions toAll(String hostPorts) {
        List<String> list = new ArrayList<>();
        for (String s : hostPorts.split(",")) {
            if (!s.isBlank()) {
                ReplicaAddresses.parse(s);
                list.add(s.trim());
            }
        }
        if (list.isEmpty()) {
            throw new IllegalArgumentException("no log server address in '" + hostPorts + "'");
        }
        InetSocketAddress first = ReplicaAddresses.parse(list.get(0));
        LogClientOptions o = to(first.getHostString(), first.getPort());
        o.addresses = List.copyOf(list);
        return o;
    }

    /** Every server this client may use: {@link #toAll}'s list, or {@code host:port}. */
    public List<String> addresses() {
        return addresses != null ? addresses : List.of(host + ":" + port);
    }

    public String host() {
        return host;
    }

    public LogClientOptions host(String host) {
        this.host = Objects.requireNonNull(host);
        this.addresses = null;
        return this;
    }

    public int port() {
        return port;
    }

    public LogClientOptions port(int port) {
        this.port = port;
        this.addresses = null;
        return this;
    }

    /** A request unanswered after this long fails with {@link io.meldb.log.LogTimeoutException}. */
    public Duration requestTimeout() {
        return requestTimeout;
    }

    public LogClientOptions requestTimeout(Duration requestTimeout) {
        this.requestTimeout = Objects.requireNonNull(requestTimeout);
        return this;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public LogClientOptions connectTimeout(Duration connectTimeout) {
        this.connectTimeout = Objects.requireNonNull(connectTimeout);
        return this;
    }

    public Duration reconnectBackoffMin() {
        return reconnectBackoffMin;
    }

    public Duration reconnectBackoffMax() {
        return reconnectBackoffMax;
    }

    /** Reconnect attempts start at {@code min} apart and double up to {@code max}. */
    public LogClientOptions reconnectBackoff(Duration min, Duration max) {
        this.reconnectBackoffMin = Objects.requireNonNull(min);
        this.reconnectBackoffMax = Objects.requireNonNull(max);
        return this;
    }

    /** I/O threads of the client's own event loop group (ignored when a group is supplied). */
    public int ioThreads() {
        return ioThreads;
    }

    public LogClientOptions ioThreads(int ioThreads) {
        this.ioThreads = ioThreads;
        return this;
    }

    /**
     * Requests in flight at most; a caller beyond it waits (up to the request timeout) for one to finish, so a
     * client that appends faster than the log stores cannot queue unbounded memory.
     */
    public int maxInFlight() {
        return maxInFlight;
    }

    public LogClientOptions maxInFlight(int maxInFlight) {
        this.maxInFlight = maxInFlight;
        return this;
    }

    /** Largest block size this client accepts in answers (sizes its frame limit). */
    public int maxBlockSize() {
        return maxBlockSize;
    }

    public LogClientOptions maxBlockSize(int maxBlockSize) {
        this.maxBlockSize = maxBlockSize;
        return this;
    }

    /** Share an event loop group (for example with the rest of a transaction server); the client will not shut it down. */
    public EventLoopGroup eventLoopGroup() {
        return eventLoopGroup;
    }

    public LogClientOptions eventLoopGroup(EventLoopGroup group) {
        this.eventLoopGroup = group;
        return this;
    }

    /** The cluster secret proven to the server on every connection; null for a server that takes anyone. */
    public ClusterSecret clusterSecret() {
        return clusterSecret;
    }

    public LogClientOptions clusterSecret(ClusterSecret secret) {
        this.clusterSecret = secret;
        return this;
    }

    /**
     * After this long without sending anything, the client sends a TAIL so that the server's idle timeout
     * ({@code --idle-timeout}, 120 s by default) never closes a connection that is merely quiet; zero sends none.
     */
    public Duration keepaliveInterval() {
        return keepaliveInterval;
    }

    public LogClientOptions keepaliveInterval(Duration interval) {
        this.keepaliveInterval = Objects.requireNonNull(interval);
        return this;
    }
}
