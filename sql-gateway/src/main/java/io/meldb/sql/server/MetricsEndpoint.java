package io.meldb.sql.server;

import io.meldb.wire.MetricsHttpServer;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A gateway's {@code GET /health} and {@code GET /metrics} on a port of their own: the log server's
 * {@link MetricsHttpServer}, as every MeldDB server uses, on one event-loop thread that this endpoint owns.
 */
public final class MetricsEndpoint implements AutoCloseable {
    private final MultiThreadIoEventLoopGroup loop;
    private final MetricsHttpServer server;

    private MetricsEndpoint(final MultiThreadIoEventLoopGroup loop, final MetricsHttpServer server) {
        this.loop = loop;
        this.server = server;
    }

    /**
     * Serves on {@code host:port} (0 = any free port); {@code health} and {@code scrape} run on the endpoint's
     * thread.
     *
     * @throws IllegalStateException when the port cannot be bound
     */
    public static MetricsEndpoint start(final String host, final int port,
                                        final Supplier<MetricsHttpServer.Health> health,
                                        final Supplier<String> scrape) {
        final MultiThreadIoEventLoopGroup loop = new MultiThreadIoEventLoopGroup(1,
                new DefaultThreadFactory("gateway-http", true), NioIoHandler.newFactory());
        try {
            return new MetricsEndpoint(loop, new MetricsHttpServer(host, port, loop, loop, health, scrape));
        } catch (RuntimeException e) {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            throw new IllegalStateException("cannot serve /metrics on " + host + ":" + port + ": " + e.getMessage(),
                    e);
        }
    }

    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        try {
            server.close();
        } finally {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
