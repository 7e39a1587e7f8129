package io.meldb.wire;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Operating any MeldDB server (the papers have no counterpart): {@code GET /health} and {@code GET /metrics}
 * (Prometheus text) on their own port, with Netty's HTTP codec (the stack rule: Netty for every network protocol),
 * sharing the server's event loops. The log server, the txn-server and the gateway each supply their own health.
 */
public final class MetricsHttpServer implements AutoCloseable {
    /** What {@code /health} answers: 200 with the body when up, 503 when not. */
    public record Health(boolean up, String json) {
    }

    private final Channel channel;

    /** An endpoint for any server: {@code health} and {@code scrape} are called on an event-loop thread. */
    public MetricsHttpServer(String host, int port, EventLoopGroup boss, EventLoopGroup workers,
                             Supplier<Health> health, Supplier<String> scrape) {
        channel = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(64 * 1024),
                                new Handler(health, scrape));
                    }
                })
                .bind(host, port).syncUninterruptibly().channel();
    }

    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }

    /** {@code s} escaped for a JSON string (quotes, backslashes, control characters), for any server's health text. */
    public static String jsonEscaped(String s) {
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final Supplier<Health> health;
        private final Supplier<String> scrape;

        Handler(Supplier<Health> health, Supplier<String> scrape) {
            this.health = health;
            this.scrape = scrape;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            String path = new QueryStringDecoder(request.uri()).path();
            FullHttpResponse response;
            if (!HttpMethod.GET.equals(request.method()) && !HttpMethod.HEAD.equals(request.method())) {
                response = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "only GET\n", "text/plain; charset=utf-8");
            } else if (path.equals("/health")) {
                Health h = health.get();
                response = text(h.up() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, h.json() + "\n",
                        "application/json");
            } else if (path.equals("/metrics")) {
                response = text(HttpResponseStatus.OK, scrape.get(), "text/plain; version=0.0.4; charset=utf-8");
            } else {
                response = text(HttpResponseStatus.NOT_FOUND, "try /health or /metrics\n", "text/plain; charset=utf-8");
            }
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            if (keepAlive) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
                ctx.writeAndFlush(response);
            } else {
                ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
            }
        }

        private static FullHttpResponse text(HttpResponseStatus status, String body, String contentType) {
            ByteBuf content = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
            r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
            return r;
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
