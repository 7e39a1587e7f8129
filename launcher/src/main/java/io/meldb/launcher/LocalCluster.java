package io.meldb.launcher;

import io.meldb.log.Durability;
import io.meldb.log.server.LogServerMain;
import io.meldb.txn.TxnServerMain;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The scale-out form on one machine, for trying it: one log server and N txn-servers, each a child process of
 * this JVM (same classpath and JVM flags), on loopback with free ports, data under one directory. The gateway
 * then connects to the txn-servers over RPC. Closing it stops the children.
 */
public final class LocalCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LocalCluster.class);
    private static final Pattern LOG_READY = Pattern.compile("log-server listening on ([^:\\s]+):(\\d+)");
    private static final Pattern TXN_READY = Pattern.compile("txn-server \\d+ listening on ([^:\\s]+):(\\d+)");

    private final List<Process> processes = new ArrayList<>();
    private final List<String> txnServers = new ArrayList<>();
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
        final LocalCluster cluster = new LocalCluster();
        try {
            Files.createDirectories(dataDir);
            cluster.secretFile = secretFile != null ? secretFile : writeSecret(dataDir.resolve("cluster-secret"));
            final String secret = cluster.secretFile.toString();
            final String log = cluster.spawn("log-server", dataDir, LOG_READY, LogServerMain.class.getName(),
                    "--cluster-secret-file", secret,
                    "--host", "127.0.0.1", "--port", "0", "--metrics-port", "-1", "--exit-with-parent", "true",
                    "--durability", durability.flag(), "--data-dir", dataDir.resolve("log").toString()).await();
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

    /** host:port of every txn-server. */
    public List<String> txnServers() {
        return txnServers;
    }

    /** A child process that has been started and will print its address. */
    private record Starting(String name, CompletableFuture<String> address, File logFile) {
        /** Waits (up to 60 s) until the process listens; its host:port. */
        String await() throws IOException {
            try {
                final String hostPort = address.get(60, TimeUnit.SECONDS);
                LOG.info("{} listening on {} (log {})", name, hostPort, logFile);
                return hostPort;
            } catch (ExecutionException e) {
                throw new IOException(e.getCause().getMessage());
            } catch (TimeoutException e) {
                throw new IOException(name + " did not start within 60 s; see " + logFile);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while " + name + " was starting");
            }
        }
    }

    private Starting spawn(final String name, final Path dataDir, final Pattern ready, final String mainClass,
                           final String... args) throws IOException {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(List.of(args));
        final File logFile = dataDir.resolve(name + ".log").toFile();
        final Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(logFile))
                .start();
        processes.add(p);
        final BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8));
        final CompletableFuture<String> address = new CompletableFuture<>();
        final Thread reader = new Thread(() -> {
            try {
                String line;
                while ((line = out.readLine()) != null) {
                    final Matcher m = ready.matcher(line);
                    if (!address.isDone() && m.find()) {
                        address.complete(m.group(1) + ":" + m.group(2));
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
            address.completeExceptionally(new IOException(name + " exited before it was ready; see " + logFile));
        }, name + "-stdout");
        reader.setDaemon(true);
        reader.start();
        return new Starting(name, address, logFile);
    }

    @Override
    public void close() {
        for (int i = processes.size() - 1; i >= 0; i--) {
            final Process p = processes.get(i);
            p.destroy();
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        processes.clear();
    }
}
