package io.meldb.bench.replication;

import io.meldb.log.Durability;
import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.log.server.LogServer;
import io.meldb.log.server.LogServerConfig;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The baseline, r = 1: today's single log server in this process and a {@link LogClient} over loopback. Its
 * "failover" is a restart on the same data directory and port, which the client rides through by reconnecting.
 */
final class MeldLogCandidate implements Candidate {
    private final Path dir;
    private final Durability durability;
    private LogServer server;
    private final int port;
    private final LogClient client;

    MeldLogCandidate(final Path dir, final Durability durability) throws Exception {
        this.dir = dir;
        this.durability = durability;
        this.server = LogServer.start(config(0));
        this.port = server.port();
        this.client = LogClient.connect(LogClientOptions.to("127.0.0.1", port));
        client.create(ReplicationBench.BLOCK, new byte[] {1}).join();
    }

    private LogServerConfig config(final int p) {
        final LogServerConfig c = LogServerConfig.at(dir.resolve("log")).host("127.0.0.1").port(p).metricsPort(-1)
            .blockSize(ReplicationBench.BLOCK);
        c.store().durability(durability);
        return c;
    }

    @Override
    public CompletableFuture<Void> append(final byte[] block) {
        return client.append(block).thenAccept(position -> { });
    }

    @Override
    public void failLeaderAndAppend(final byte[] block) throws Exception {
        server.close();
        server = LogServer.start(config(port));
        append(block).get(60, TimeUnit.SECONDS);
    }

    @Override
    public String describe() {
        return "MeldDB log server (r = 1) in one JVM, durability " + durability.name().toLowerCase()
            + "; failover = restart on the same data directory";
    }

    @Override
    public void close() {
        client.close();
        server.close();
    }
}
