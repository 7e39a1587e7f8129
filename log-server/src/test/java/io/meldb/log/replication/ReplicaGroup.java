package io.meldb.log.replication;

import io.meldb.log.server.LogServer;
import io.meldb.log.server.LogServerConfig;
import io.meldb.testkit.Await;
import io.meldb.testkit.FreePorts;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Three replicated log servers in this JVM, each with a log port and a Raft port on loopback, under one directory:
 * the fixture of the in-JVM replication tests. {@link #close} stops what was started, clients first.
 */
final class ReplicaGroup implements AutoCloseable {
    static final int SIZE = 3;

    final LogServer[] servers = new LogServer[SIZE];
    final int[] logPorts = new int[SIZE];
    final int[] raftPorts = new int[SIZE];
    private final Path dir;
    private final int blockSize;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    /** Picks free ports for every replica; nothing is started yet. */
    ReplicaGroup(final Path dir, final int blockSize) throws IOException {
        this.dir = dir;
        this.blockSize = blockSize;
        // all six distinct: picked one by one, two picks could be the same free port
        final int[] ports = FreePorts.distinctBelowEphemeralRange(2 * SIZE);
        for (int i = 0; i < SIZE; i++) {
            logPorts[i] = ports[2 * i];
            raftPorts[i] = ports[2 * i + 1];
        }
    }

    /** {@code --peers}: {@code n0=127.0.0.1:raft:log,...}. */
    String peers() {
        final StringBuilder b = new StringBuilder();
        for (int i = 0; i < SIZE; i++) {
            b.append(i == 0 ? "" : ",").append('n').append(i).append("=127.0.0.1:").append(raftPorts[i]).append(':')
                .append(logPorts[i]);
        }
        return b.toString();
    }

    /** Every replica's log address, as a txn-server's {@code --log} lists them. */
    String addresses() {
        final StringBuilder b = new StringBuilder();
        for (int i = 0; i < SIZE; i++) {
            b.append(i == 0 ? "" : ",").append("127.0.0.1:").append(logPorts[i]);
        }
        return b.toString();
    }

    /** Starts replica {@code i} (again, after a stop) with the options {@code options} makes of the defaults. */
    LogServer start(final int i, final UnaryOperator<ReplicationOptions> options) throws IOException {
        final ReplicationOptions r = options.apply(new ReplicationOptions(SIZE, "n" + i,
            RaftPeers.parse(peers(), logPorts[i])));
        servers[i] = LogServer.start(LogServerConfig.at(dir.resolve("log-" + i)).port(logPorts[i]).metricsPort(-1)
            .blockSize(blockSize).replication(r));
        return servers[i];
    }

    void startAll(final UnaryOperator<ReplicationOptions> options) throws IOException {
        for (int i = 0; i < SIZE; i++) {
            start(i, options);
        }
    }

    /** The replica that leads and can take appends, waiting up to 30 s for one. */
    int leader() {
        return Await.value(Duration.ofSeconds(30), "a leader", () -> {
            for (int i = 0; i < SIZE; i++) {
                if (servers[i] != null && servers[i].replicated().replica().isLeaderReady()) {
                    return i;
                }
            }
            return null;
        });
    }

    /** Closes {@code c} in {@link #close}, before the servers, last registered first. */
    <T extends AutoCloseable> T closeLater(final T c) {
        toClose.add(c);
        return c;
    }

    @Override
    public void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        for (LogServer s : servers) {
            if (s != null) {
                s.close();
            }
        }
    }

}
