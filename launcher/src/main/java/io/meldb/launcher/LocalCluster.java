package io.meldb.launcher;

import io.meldb.log.Durability;
import io.meldb.log.server.LogServerMain;
import io.meldb.process.ChildProcess;
import io.meldb.process.JavaCommand;
import io.meldb.txn.TxnServerMain;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;

/**
 * The scale-out form on one machine, for trying it: one log server (or r replicas of the log under Raft, issue 22:
 * {@link LocalLogReplicas}) and N txn-servers, each a child process of this JVM (same classpath and JVM flags, started
 * through the process module's launcher), on loopback with free ports, data under one directory. The gateway then
 * connects to the txn-servers over RPC. Closing it stops the children.
 */
public final class LocalCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LocalCluster.class);
    private static final Pattern LOG_READY = Pattern.compile("log-server listening on ([^:\\s]+):(\\d+)");
    private static final Pattern TXN_READY = Pattern.compile("txn-server \\d+ listening on ([^:\\s]+):(\\d+)");

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);
    /** Lines of a child's output kept in memory for error messages; the log file has all of them. */
    private static final int KEEP_LINES = 200;

    private final List<ChildProcess> processes = new ArrayList<>();
    private final List<String> txnServers = new ArrayList<>();
    private final List<ChildProcess> logServers = new ArrayList<>();
    private Path secretFile;

    private LocalCluster() {
    }

    /** Starts the log server and {@code txnServers} txn-servers; returns once all are listening. */
    public static LocalCluster start(final Path dataDir, final int txnServerCount) {
        return start(dataDir, txnServerCount, Durability.PAGE_CACHE);
    }

    /** As {@link #start(Path, int)}, with the log server acknowledging appends at the given durability. */
    public static LocalCluster start(final Path dataDir, final int txnServerCount, final Durability durability) {
        return start(dataDir, txnServerCount, durability, null);
    }

    /**
     * As {@link #start(Path, int, Durability)}; the children require the cluster secret in {@code secretFile}, or,
     * when that is null, in a secret generated for this run (a file only this user can read, under
     * {@code dataDir}), so that no other local process can use their ports. {@link #secretFile()} names it.
     */
    public static LocalCluster start(final Path dataDir, final int txnServerCount, final Durability durability,
                                     final Path secretFile) {
        return start(dataDir, txnServerCount, durability, secretFile, List.of());
    }

    /** As {@link #start(Path, int, Durability, Path)}, with extra flags for every txn-server. */
    public static LocalCluster start(final Path dataDir, final int txnServerCount, final Durability durability,
                                     final Path secretFile, final List<String> txnServerFlags) {
        return start(dataDir, txnServerCount, durability, secretFile, txnServerFlags, 1);
    }

    /**
     * As {@link #start(Path, int, Durability, Path, List)}, with {@code logReplicas} log servers: 1 is one log server
     * as before, more replicate the log under Raft (each append acknowledged once a majority holds it), and every
     * txn-server is given all of them.
     */
    public static LocalCluster start(final Path dataDir, final int txnServerCount, final Durability durability,
                                     final Path secretFile, final List<String> txnServerFlags, final int logReplicas) {
        final LocalCluster cluster = new LocalCluster();
        try {
            Files.createDirectories(dataDir);
            final LocalLogReplicas replicas = LocalLogReplicas.plan(dataDir, logReplicas);
            cluster.secretFile = secretFile != null ? secretFile : writeSecret(dataDir.resolve("cluster-secret"));
            final String secret = cluster.secretFile.toString();
            final String log;
            if (replicas == null) {
                log = cluster.spawnLog("log-server", dataDir, secret, durability, "--port", "0", "--data-dir",
                        dataDir.resolve("log").toString()).await();
            } else {
                // a Raft group elects a leader once a majority is up: the replicas start side by side
                final List<Starting> logs = new ArrayList<>();
                for (int i = 1; i <= replicas.replicas(); i++) {
                    logs.add(cluster.spawnLog("log-server-" + i, dataDir, secret, durability,
                            "--port", String.valueOf(replicas.logPort(i)),
                            "--data-dir", dataDir.resolve("log-" + i).toString(),
                            "--replication-factor", String.valueOf(replicas.replicas()),
                            "--node-id", LocalLogReplicas.id(i), "--peers", replicas.peers()));
                }
                final List<String> addresses = new ArrayList<>();
                for (Starting s : logs) {
                    addresses.add(s.await());
                }
                log = String.join(",", addresses);
            }
            // the first txn-server writes the cluster configuration into a new log; the others then start side by
            // side (a JVM start takes seconds on a busy machine)
            final List<Starting> starting = new ArrayList<>();
            for (int i = 1; i <= txnServerCount; i++) {
                if (i == 2) {
                    cluster.txnServers.add(starting.remove(0).await());
                }
                final List<String> args = new ArrayList<>(List.of("--host", "127.0.0.1", "--port", "0",
                        "--metrics-port", "-1", "--server-id", String.valueOf(i), "--log", log, "--exit-with-parent",
                        "true", "--cluster-secret-file", secret));
                args.addAll(txnServerFlags);
                starting.add(cluster.spawn("txn-server-" + i, dataDir, TXN_READY, TxnServerMain.class.getName(),
                        args.toArray(new String[0])));
            }
            for (Starting s : starting) {
                cluster.txnServers.add(s.await());
            }
            return cluster;
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw new IllegalStateException("cannot start the local cluster: " + e.getMessage(), e);
        }
    }

    /** The file of the secret the children require (and the gateway presents). */
    public Path secretFile() {
        return secretFile;
    }

    /** A fresh random secret in {@code file}, readable by this user only (created so, never widened after). */
    private static Path writeSecret(final Path file) throws IOException {
        Files.deleteIfExists(file);
        try {
            Files.createFile(file, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            Files.createFile(file); // not a POSIX file system
        }
        Files.writeString(file, io.meldb.wire.auth.ClusterSecret.generate() + "\n");
        return file;
    }

    /**
     * A log server (one of the replicas), on loopback, with the cluster secret, stopping with this JVM; {@code more}:
     * its port, data directory and replication flags.
     */
    private Starting spawnLog(final String name, final Path dataDir, final String secret, final Durability durability,
                              final String... more) {
        final List<String> args = new ArrayList<>(List.of("--cluster-secret-file", secret, "--host", "127.0.0.1",
                "--metrics-port", "-1", "--exit-with-parent", "true", "--durability", durability.flag()));
        args.addAll(List.of(more));
        final Starting s = spawn(name, dataDir, LOG_READY, LogServerMain.class.getName(), args.toArray(new String[0]));
        logServers.add(s.child());
        return s;
    }

    /** The log server processes (one, or the replicas in node order l1, l2, ...). */
    public List<ChildProcess> logServers() {
        return List.copyOf(logServers);
    }

    /** host:port of every txn-server. */
    public List<String> txnServers() {
        return txnServers;
    }

    /** A child process that has been started and will print its address. */
    private record Starting(ChildProcess child) {
        /** Waits (up to 60 s) until the process listens; its host:port. */
        String await() throws IOException {
            try {
                final MatchResult m = child.awaitReady(READY_TIMEOUT);
                final String hostPort = m.group(1) + ":" + m.group(2);
                LOG.info("{} listening on {} (log {})", child.name(), hostPort, child.outputFile());
                return hostPort;
            } catch (IllegalStateException e) {
                throw new IOException(child.name() + " did not start; see " + child.outputFile() + ": "
                        + e.getMessage(), e);
            }
        }
    }

    /**
     * Starts {@code mainClass} with this JVM's class path and options (bin/meldb's flags and MELDB_JAVA_OPTS), its
     * output appended to {@code <dataDir>/<name>.log}; only its last lines stay in memory, as it may run for days.
     */
    private Starting spawn(final String name, final Path dataDir, final Pattern ready, final String mainClass,
                           final String... args) {
        final ChildProcess child = ChildProcess.builder(name, JavaCommand.main(mainClass).inheritJvmFlags()
                        .args(args).build())
                .appendOutput(dataDir.resolve(name + ".log")).ready(ready).keepLines(KEEP_LINES).start();
        processes.add(child);
        return new Starting(child);
    }

    @Override
    public void close() {
        for (int i = processes.size() - 1; i >= 0; i--) {
            processes.get(i).stop(STOP_GRACE);
        }
        processes.clear();
    }
}
