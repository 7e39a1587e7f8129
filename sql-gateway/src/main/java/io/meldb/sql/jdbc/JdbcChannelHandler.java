package io.meldb.sql.jdbc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import org.apache.calcite.avatica.remote.Handler.HandlerResponse;
import org.apache.calcite.avatica.remote.Service;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * One HTTP connection of the JDBC endpoint: Avatica protobuf requests by POST, one at a time and answered in order
 * (reading stops while a request runs on a worker). What it guarantees before a body is read:
 * <ul>
 *   <li>authentication ({@link JdbcAuth}): none when users are configured gets 401 with a Basic challenge, wrong
 *   credentials an Avatica error with SQLSTATE 28P01, a client off loopback without users 28000;</li>
 *   <li>a body is read only when it declares its length and that is at most the limit: larger gets 413, none 411,
 *   each a one-line text answer, the body is never read and the connection closes;</li>
 *   <li>a body that is not an Avatica protobuf request gets 400 and one line, not a 500 with a stack trace;</li>
 *   <li>a connection silent (or half-sent) for the idle timeout is closed, unless it waits for its answer.</li>
 * </ul>
 */
final class JdbcChannelHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(JdbcChannelHandler.class);
    private static final String PROTOBUF = "application/octet-stream;charset=utf-8";
    private static final String SIGNATURES_HEADER = io.meldb.sql.client.MeldHttpClient.SIGNATURES_HEADER;

    private final JdbcServer server;
    /** The body being read, and how much of it has come. */
    private byte[] body;
    private int received;
    private boolean keepAlive;
    /** The client puts back the signatures of EXECUTE answers (MeldDB's driver): they may be left out. */
    private boolean omitSignatures;
    /** The rest of a refused request's body is dropped until its end. */
    private boolean discarding;
    /** A request is running; the idle timeout does not apply. */
    private boolean busy;

    JdbcChannelHandler(final JdbcServer server) {
        this.server = server;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
        try {
            if (msg instanceof HttpRequest request) {
                start(ctx, request);
            }
            if (msg instanceof HttpContent content && !discarding && body != null) {
                append(ctx, content);
            }
            if (msg instanceof LastHttpContent) {
                discarding = false;
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void start(final ChannelHandlerContext ctx, final HttpRequest request) {
        body = null;
        received = 0;
        discarding = true; // until the request is accepted
        if (request.decoderResult().isFailure()) {
            text(ctx, HttpResponseStatus.BAD_REQUEST, "not an HTTP request: " + request.decoderResult().cause()
                    .getMessage(), false);
            return;
        }
        keepAlive = HttpUtil.isKeepAlive(request);
        omitSignatures = request.headers().contains(SIGNATURES_HEADER);
        if (!HttpMethod.POST.equals(request.method())) {
            text(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED,
                    "the JDBC endpoint takes Avatica protobuf requests by POST only", keepAlive);
            return;
        }
        final JdbcAuth.Verdict verdict = server.auth().check(ctx.channel().remoteAddress(),
                request.headers().get(HttpHeaderNames.AUTHORIZATION));
        if (!verdict.ok()) {
            refuse(ctx, verdict);
            return;
        }
        final long length = HttpUtil.getContentLength(request, -1L);
        if (length < 0) {
            text(ctx, HttpResponseStatus.LENGTH_REQUIRED, "a request must declare its Content-Length", false);
            return;
        }
        if (length > server.maxRequestBytes()) {
            text(ctx, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "request of " + length
                    + " bytes exceeds the limit of " + server.maxRequestBytes() + " (--jdbc-max-request-bytes)", false);
            return;
        }
        if (HttpUtil.is100ContinueExpected(request)) {
            ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
        }
        discarding = false;
        body = new byte[(int) length];
        busy = true; // a half-sent body still times out: see userEventTriggered
    }

    private void append(final ChannelHandlerContext ctx, final HttpContent content) {
        final ByteBuf bytes = content.content();
        final int n = Math.min(bytes.readableBytes(), body.length - received);
        bytes.readBytes(body, received, n);
        received += n;
        if (content instanceof LastHttpContent) {
            final byte[] complete = body;
            body = null;
            if (received != complete.length) {
                text(ctx, HttpResponseStatus.BAD_REQUEST, "the request ended after " + received + " of its "
                        + complete.length + " bytes", false);
                return;
            }
            dispatch(ctx, complete);
        }
    }

    private void dispatch(final ChannelHandlerContext ctx, final byte[] bytes) {
        final Service.Request request;
        try {
            request = server.requests().parse(bytes);
        } catch (Exception e) {
            text(ctx, HttpResponseStatus.BAD_REQUEST, "not an Avatica protobuf request", keepAlive);
            return;
        }
        final boolean close = !keepAlive || request instanceof Service.CloseConnectionRequest;
        final boolean omit = omitSignatures;
        switch (server.requests().modeOf(request)) {
            case INLINE -> answer(ctx, server.requests().run(request, omit), close);
            case COMMIT_ASYNC -> later(ctx, server.requests().commitAsync((Service.CommitRequest) request), close);
            default -> {
                final CompletableFuture<HandlerResponse<byte[]>> answer = new CompletableFuture<>();
                try {
                    server.workers().execute(() -> {
                        try {
                            answer.complete(server.requests().run(request, omit));
                        } catch (Throwable t) { // an Error: still an answer, and the connection goes on
                            answer.complete(server.requests().failure(t));
                        }
                    });
                } catch (RejectedExecutionException e) {
                    LOG.warn("JDBC: every worker is busy; refused a {}", request.getClass().getSimpleName());
                    refuse(ctx, new JdbcAuth.Verdict(false, false, "53300", "too many JDBC requests at once"));
                    return;
                }
                later(ctx, answer, close);
            }
        }
    }

    /** Stops reading until the answer is out: requests on one connection are answered in order. */
    private void later(final ChannelHandlerContext ctx, final CompletableFuture<HandlerResponse<byte[]>> answer,
                       final boolean close) {
        if (answer.isDone()) {
            answer(ctx, answer.join(), close);
            return;
        }
        ctx.channel().config().setAutoRead(false);
        answer.whenComplete((r, e) -> ctx.executor().execute(() -> {
            answer(ctx, r != null ? r : server.requests().failure(e), close);
            ctx.channel().config().setAutoRead(true);
        }));
    }

    private void answer(final ChannelHandlerContext ctx, final HandlerResponse<byte[]> r, final boolean close) {
        busy = false;
        final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(r.getStatusCode()), Unpooled.wrappedBuffer(r.getResponse()));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, PROTOBUF);
        send(ctx, response, close);
    }

    private void refuse(final ChannelHandlerContext ctx, final JdbcAuth.Verdict verdict) {
        if (verdict.challenge()) {
            final FullHttpResponse r = textResponse(HttpResponseStatus.UNAUTHORIZED, verdict.message());
            r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Basic realm=\"MeldDB\", charset=\"UTF-8\"");
            server.countRefusal();
            send(ctx, r, !keepAlive);
            return;
        }
        server.countRefusal();
        LOG.warn("JDBC: refused a request from {}: {}", ctx.channel().remoteAddress(), verdict.message());
        final FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.INTERNAL_SERVER_ERROR, Unpooled.wrappedBuffer(
                        server.requests().refusal(verdict.sqlState(), verdict.message())));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, PROTOBUF);
        send(ctx, r, !keepAlive);
    }

    private void text(final ChannelHandlerContext ctx, final HttpResponseStatus status, final String message,
                      final boolean keepOpen) {
        server.countRefusal();
        send(ctx, textResponse(status, message), !keepOpen);
    }

    private static FullHttpResponse textResponse(final HttpResponseStatus status, final String message) {
        final FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.wrappedBuffer((message + "\n").getBytes(StandardCharsets.UTF_8)));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain;charset=utf-8");
        return r;
    }

    private void send(final ChannelHandlerContext ctx, final FullHttpResponse response, final boolean close) {
        busy = false;
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
        if (close) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.writeAndFlush(response);
        }
    }

    @Override
    public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt) {
        if (evt instanceof IdleStateEvent) {
            // silent, or stuck in the middle of sending a body; a request running on a worker is not idleness
            if (!busy || body != null) {
                ctx.close();
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
        LOG.debug("JDBC connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
