package io.meldb.launcher;

import java.io.IOException;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The {@code meldb} command as a real process for tests (see {@link JavaProcess}), port 0; the JDBC URLs are read
 * from its "MeldDB ready:", "MeldDB JDBC (MeldDB driver):" and "MeldDB PostgreSQL:" lines. Closing stops it and anything it started.
 */
final class GatewayProcess implements AutoCloseable {
    private static final Pattern READY = Pattern.compile(
            "^MeldDB ready: (\\S+)\\s*$|^MeldDB JDBC \\(MeldDB driver\\): (\\S+)\\s*$");

    private final JavaProcess process;
    private final String url;
    private final String meldUrl;
    private final String pgJdbcUrl;

    private GatewayProcess(final JavaProcess process, final String url, final String meldUrl,
                           final String pgJdbcUrl) {
        this.process = process;
        this.url = url;
        this.meldUrl = meldUrl;
        this.pgJdbcUrl = pgJdbcUrl;
    }

    static GatewayProcess start(final String... args) throws IOException {
        // the ready line comes first, the MeldDB driver's line and the PostgreSQL line right after it: wait for the
        // last
        final JavaProcess p = JavaProcess.start("meldb", Pattern.compile("^MeldDB PostgreSQL: (\\S+)"),
                "io.meldb.launcher.GatewayMain", args);
        String avatica = null;
        String meld = null;
        for (String line : p.output().split("\n")) {
            final var m = READY.matcher(line);
            if (m.find()) {
                if (m.group(1) != null) {
                    avatica = m.group(1);
                } else {
                    meld = m.group(2);
                }
            }
        }
        if (avatica == null || meld == null) {
            p.close();
            throw new IOException("meldb printed no 'MeldDB ready:' or MeldDB driver line before its PostgreSQL "
                    + "line:\n" + p.output());
        }
        return new GatewayProcess(p, avatica, meld, "jdbc:" + p.group(1));
    }

    /** The URL of the "MeldDB ready:" line (Avatica's remote driver). */
    String url() {
        return url;
    }

    /** pgjdbc's URL of the "MeldDB PostgreSQL:" line. */
    String pgJdbcUrl() {
        return pgJdbcUrl;
    }

    /** The URL for MeldDB's driver. */
    String meldUrl() {
        return meldUrl;
    }

    /** The URL of the "MeldDB metrics:" line, or null when the process printed none. */
    String metricsUrl() {
        final var m = Pattern.compile("(?m)^MeldDB metrics: (\\S+)\\s*$").matcher(output());
        return m.find() ? m.group(1) : null;
    }

    String output() {
        return process.output();
    }

    long pid() {
        return process.pid();
    }

    /** Kills the process as {@code kill -9} does. */
    void kill() throws InterruptedException {
        process.kill();
    }

    List<ProcessHandle> descendants() {
        return process.descendants();
    }

    @Override
    public void close() {
        process.close();
    }
}
