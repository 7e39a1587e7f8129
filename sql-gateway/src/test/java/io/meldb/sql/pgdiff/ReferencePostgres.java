package io.meldb.sql.pgdiff;

import io.meldb.sql.server.EmbeddedGateway;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway PostgreSQL 15 cluster, the reference of the differential tier: initdb and pg_ctl from Debian's
 * {@code /usr/lib/postgresql/15/bin} (or {@code $PG15_BIN}) in a temporary directory, listening on a free loopback
 * port, locale C and UTF8 (so text orders by code point), fsync off. As root both run as the {@code postgres} OS
 * user (initdb and postgres refuse root), through {@code runuser} or {@code su}. {@link #close()} stops the cluster
 * (immediate shutdown) and deletes the directory, also after a failed start.
 */
final class ReferencePostgres implements AutoCloseable {
    static final Path BIN = Path.of(System.getenv().getOrDefault("PG15_BIN", "/usr/lib/postgresql/15/bin"));

    private final Path dir;
    private final Path data;
    private final int port;
    private boolean started;

    private ReferencePostgres(final Path dir, final int port) {
        this.dir = dir;
        this.data = dir.resolve("data");
        this.port = port;
    }

    /** Why this machine cannot start the reference, or null when it can. */
    static String whyUnavailable() {
        if (!Files.isExecutable(BIN.resolve("initdb")) || !Files.isExecutable(BIN.resolve("pg_ctl"))) {
            return "PostgreSQL 15 server binaries are not in " + BIN + " (Debian: apt-get install postgresql-15)";
        }
        if (isRoot() && postgresUser() == null) {
            return "running as root but there is no 'postgres' OS user to run initdb and postgres as";
        }
        return null;
    }

    static ReferencePostgres start() throws IOException, InterruptedException {
        final Path dir = Files.createTempDirectory("meldb-pgdiff");
        final ReferencePostgres pg = new ReferencePostgres(dir, freePort());
        try {
            if (isRoot()) {
                Files.setOwner(dir, postgresUser());
            }
            pg.run(120, BIN.resolve("initdb").toString(), "-D", pg.data.toString(), "-U", "postgres", "-A", "trust",
                    "-E", "UTF8", "--locale=C", "-N");
            pg.started = true;
            pg.run(120, BIN.resolve("pg_ctl").toString(), "-D", pg.data.toString(), "-l",
                    dir.resolve("server.log").toString(), "-w", "-t", "60", "-o",
                    "-p " + pg.port + " -c listen_addresses=127.0.0.1 -c unix_socket_directories=" + dir
                            + " -c fsync=off -c synchronous_commit=off -c full_page_writes=off", "start");
            return pg;
        } catch (IOException | InterruptedException | RuntimeException e) {
            final String log = pg.log();
            pg.close();
            throw new IOException("the reference PostgreSQL did not start: " + e.getMessage() + "\n" + log, e);
        }
    }

    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    /** initdb's, pg_ctl's and the server's output so far. */
    String log() {
        final StringBuilder s = new StringBuilder();
        for (String f : List.of("commands.log", "server.log")) {
            try {
                s.append(Files.readString(dir.resolve(f)));
            } catch (IOException e) {
                // not written yet
            }
        }
        return s.toString();
    }

    @Override
    public void close() {
        try {
            if (started) {
                run(60, BIN.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "-w", "stop");
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            System.err.println("pgdiff: stopping the reference PostgreSQL failed: " + e.getMessage());
        } finally {
            started = false;
            EmbeddedGateway.deleteTree(dir);
        }
    }

    /** Runs one PostgreSQL command as the postgres OS user when we are root; fails on a non-zero exit. */
    private void run(final int seconds, final String... command) throws IOException, InterruptedException {
        final List<String> line = new ArrayList<>();
        if (isRoot()) {
            if (Files.isExecutable(Path.of("/usr/sbin/runuser")) || Files.isExecutable(Path.of("/sbin/runuser"))) {
                line.addAll(List.of("runuser", "-u", "postgres", "--"));
                line.addAll(List.of(command));
            } else {
                final StringBuilder quoted = new StringBuilder();
                for (String c : command) {
                    quoted.append('\'').append(c.replace("'", "'\\''")).append("' ");
                }
                line.addAll(List.of("su", "postgres", "-s", "/bin/sh", "-c", quoted.toString()));
            }
        } else {
            line.addAll(List.of(command));
        }
        final Path out = dir.resolve("commands.log");
        final Process p = new ProcessBuilder(line).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile())).start();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish in " + seconds + " s");
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " exited with " + p.exitValue());
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static java.nio.file.attribute.UserPrincipal postgresUser() {
        try {
            final UserPrincipalLookupService users = Path.of("/").getFileSystem().getUserPrincipalLookupService();
            return users.lookupPrincipalByName("postgres");
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
