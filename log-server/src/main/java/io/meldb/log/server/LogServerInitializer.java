package io.meldb.log.server;

import io.meldb.wire.IdleConnectionCloser;
import io.meldb.log.protocol.LogFrameDecoder;
import io.meldb.log.protocol.LogFrameEncoder;
import io.meldb.log.protocol.LogProtocol;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;

/**
 * Pipeline of a connection to the log service (Hyder II §5.1): cluster handshake (when the server has a secret), idle timeout, frame decoder (limit: the largest valid request for this block size),
 * frame encoder, request handler.
 */
final class LogServerInitializer extends ChannelInitializer<SocketChannel> {
    private final LogServer server;

    LogServerInitializer(LogServer server) {
        this.server = server;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        if (server.auth() != null) {
            ch.pipeline().addLast("auth", server.auth().newHandler());
        }
        if (!server.config().idleTimeout().isZero()) {
            ch.pipeline().addLast("idle", new IdleConnectionCloser(server.config().idleTimeout(), "the log server",
                    server.idleClosed()));
        }
        ch.pipeline().addLast("decoder", new LogFrameDecoder(LogProtocol.maxRequestFrameLength(server.config().blockSize())));
        ch.pipeline().addLast("encoder", LogFrameEncoder.INSTANCE);
        ch.pipeline().addLast("handler", new LogServerHandler(server));
    }
}
