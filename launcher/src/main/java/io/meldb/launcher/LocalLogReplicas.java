package io.meldb.launcher;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the log servers of a local cluster with a replicated log (issue 22, {@code --log-replicas r}) listen: replica
 * {@code i} is node {@code l<i>} with its data in {@code <data-dir>/log-<i>} and a log port and a Raft port on
 * loopback. The ports are chosen free on the first start and kept in {@code <data-dir>/log-peers}, because Raft keeps
 * the peers' addresses in its own log: a restart must find every replica where the group last saw it.
 *
 * <p>A data directory holds one layout: a single log server's {@code log/} or r replicas; starting it with another
 * is refused, as the other log would be silently ignored.
 */
final class LocalLogReplicas {
    static final String PEERS_FILE = "log-peers";

    private final int replicas;
    private final int[] logPorts;
    private final int[] raftPorts;

    private LocalLogReplicas(final int[] logPorts, final int[] raftPorts) {
        this.replicas = logPorts.length;
        this.logPorts = logPorts;
        this.raftPorts = raftPorts;
    }

    /**
     * The layout of {@code replicas} log servers under {@code dataDir}: the one kept there, or new free ports (then
     * written down).
     *
     * @throws IllegalArgumentException if the directory holds a log of another layout
     */
    static LocalLogReplicas plan(final Path dataDir, final int replicas) throws IOException {
        final Path file = dataDir.resolve(PEERS_FILE);
        final boolean single = Files.isDirectory(dataDir.resolve("log"));
        if (replicas == 1) {
            if (Files.exists(file)) {
                throw new IllegalArgumentException(dataDir + " holds a replicated log (" + file + "); start it with"
                    + " --log-replicas " + Files.readAllLines(file).size());
            }
            return null;
        }
        if (single) {
            throw new IllegalArgumentException(dataDir + " holds the log of a single log server (" + dataDir.resolve("log")
                + "); start it without --log-replicas, or use a new --data-dir");
        }
        if (Files.exists(file)) {
            final List<String> lines = Files.readAllLines(file).stream().filter(l -> !l.isBlank()).toList();
            if (lines.size() != replicas) {
                throw new IllegalArgumentException(dataDir + " holds a log of " + lines.size() + " replicas (" + file
                    + "); start it with --log-replicas " + lines.size());
            }
            final int[] log = new int[replicas];
            final int[] raft = new int[replicas];
            for (int i = 0; i < replicas; i++) {
                final String[] ports = lines.get(i).trim().split(":");
                try {
                    log[i] = Integer.parseInt(ports[0]);
                    raft[i] = Integer.parseInt(ports[1]);
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException(file + " line " + (i + 1) + " is not logPort:raftPort: " + lines.get(i));
                }
            }
            return new LocalLogReplicas(log, raft);
        }
        final List<ServerSocket> held = new ArrayList<>();
        final int[] log = new int[replicas];
        final int[] raft = new int[replicas];
        try {
            for (int i = 0; i < replicas; i++) {
                log[i] = hold(held);
                raft[i] = hold(held);
            }
        } finally {
            for (ServerSocket s : held) {
                s.close();
            }
        }
        final StringBuilder b = new StringBuilder();
        for (int i = 0; i < replicas; i++) {
            b.append(log[i]).append(':').append(raft[i]).append('\n');
        }
        Files.writeString(file, b.toString());
        return new LocalLogReplicas(log, raft);
    }

    /** A free loopback port, kept bound until all are chosen so that no two replicas get the same one. */
    private static int hold(final List<ServerSocket> held) throws IOException {
        final ServerSocket s = new ServerSocket();
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        held.add(s);
        return s.getLocalPort();
    }

    int replicas() {
        return replicas;
    }

    /** Node id of replica {@code i} (1-based). */
    static String id(final int i) {
        return "l" + i;
    }

    int logPort(final int i) {
        return logPorts[i - 1];
    }

    /** The {@code --peers} list every replica gets. */
    String peers() {
        final StringBuilder b = new StringBuilder();
        for (int i = 1; i <= replicas; i++) {
            b.append(i == 1 ? "" : ",").append(id(i)).append("=127.0.0.1:").append(raftPorts[i - 1]).append(':')
                .append(logPorts[i - 1]);
        }
        return b.toString();
    }
}
