package io.meldb.sql.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The {@code meldb} command as a real process for tests: {@code java} with this module's runtime classpath and
 * the project's JVM flags, port 0; the JDBC URL is read from its "MeldDB ready:" line. Closing stops it
 * (SIGTERM, then kill).
 */
final class GatewayProcess implements AutoCloseable {
    private final Process process;
    private final String url;

    private GatewayProcess(final Process process, final String url) {
        this.process = process;
        this.url = url;
    }

    static GatewayProcess start(final String... args) throws IOException {
        final Path module = Path.of("").toAbsolutePath();
        final String classpath = module.resolve("target/classes") + java.io.File.pathSeparator
                + Files.readString(module.resolve("target/runtime-classpath.txt")).trim();
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(Files.readString(module.resolve("../bin/jvm-flags")).trim().split("\\s+")));
        command.add("-Xmx512m");
        command.add("-cp");
        command.add(classpath);
        command.add("io.meldb.sql.server.GatewayMain");
        command.addAll(List.of(args));
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final CompletableFuture<String> ready = new CompletableFuture<>();
        final StringBuilder output = new StringBuilder();
        final Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    synchronized (output) {
                        output.append(line).append('\n');
                    }
                    if (line.startsWith("MeldDB ready: ")) {
                        ready.complete(line.substring("MeldDB ready: ".length()).trim());
                    }
                }
            } catch (IOException e) {
                // process ended
            }
            ready.completeExceptionally(new IOException("meldb exited before it was ready"));
        }, "meldb-process-output");
        reader.setDaemon(true);
        reader.start();
        try {
            return new GatewayProcess(p, ready.get(90, TimeUnit.SECONDS));
        } catch (Exception e) {
            p.destroyForcibly();
            synchronized (output) {
                throw new IOException("meldb did not start: " + e + "\n" + output, e);
            }
        }
    }

    String url() {
        return url;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
