package io.meldb.wire.auth;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static io.meldb.wire.auth.ClusterAuthProtocol.*;
import static io.meldb.wire.FrameFormat.*;

/**
 * The client side of the cluster handshake ({@link ClusterAuthProtocol}): first in a client connection's pipeline,
 * it proves the secret and checks the server's proof, and only then removes itself and passes the connection's
 * activation on, so the client's own handlers start on an authenticated connection. {@link #ready(Channel)} tells
 * the code that connected how it went; a failed handshake closes the connection without the client's handlers ever
 * seeing it (they see neither its activation nor its end).
 */
public final class ClusterAuthClientHandler extends ChannelInboundHandlerAdapter {
    private static final AttributeKey<Promise<Void>> READY = AttributeKey.valueOf("meldb.cluster-auth.ready");

    private final ClusterSecret secret;
    private final int magic;
    private final byte version;
    private final String serverName;
    private final long timeoutNanos;
    private final ByteBuf pending = Unpooled.buffer(HEADER_LENGTH, MAX_CLIENT_SIDE_FRAME);
    private byte[] clientNonce;
    private boolean proved;
    private Promise<Void> ready;
    private ScheduledFuture<?> timeout;

    /** @param serverName names the server in messages ("the log server at host:port") */
    public ClusterAuthClientHandler(ClusterSecret secret, int magic, byte version, String serverName, Duration timeout) {
        this.secret = secret;
        this.magic = magic;
        this.version = version;
        this.serverName = serverName;
        this.timeoutNanos = timeout.toNanos();
    }

    /**
     * How the handshake of {@code ch} went: done at once for a connection without one, else once the server welcomed
     * the client (success) or the handshake failed ({@link ClusterAuthException} or the connection's loss).
     */
    public static Future<Void> ready(Channel ch) {
        Promise<Void> p = ch.attr(READY).get();
        return p != null ? p : ch.eventLoop().<Void>newPromise().setSuccess(null);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        ready = ctx.executor().newPromise();
        ctx.channel().attr(READY).set(ready);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        clientNonce = ClusterSecret.nonce();
        ctx.writeAndFlush(frame(ctx.alloc(), magic, version, HELLO, 0, clientNonce));
        timeout = ctx.executor().schedule(() -> fail(ctx, serverName + " did not complete the cluster handshake within "
                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms"), timeoutNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        fail(ctx, serverName + " closed the connection during the cluster handshake");
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (timeout != null) {
            timeout.cancel(false);
        }
        pending.release();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (ready.isDone() || !(msg instanceof ByteBuf in)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        try {
            while (!ready.isDone() && in.isReadable()) {
                if (pending.readableBytes() < HEADER_LENGTH) {
                    pending.writeBytes(in, Math.min(HEADER_LENGTH - pending.readableBytes(), in.readableBytes()));
                    if (pending.readableBytes() < HEADER_LENGTH) {
                        return;
                    }
                    if (pending.getInt(MAGIC_OFFSET) != magic) {
                        fail(ctx, serverName + " does not speak this protocol (magic "
                                + String.format("0x%08X", pending.getInt(MAGIC_OFFSET)) + ")");
                        return;
                    }
                    if (ClusterAuthProtocol.totalLength(pending) > MAX_CLIENT_SIDE_FRAME) {
                        fail(ctx, serverName + " answered the cluster handshake with a frame of "
                                + ClusterAuthProtocol.totalLength(pending) + " bytes");
                        return;
                    }
                }
                int total = (int) ClusterAuthProtocol.totalLength(pending);
                pending.writeBytes(in, Math.min(total - pending.readableBytes(), in.readableBytes()));
                if (pending.readableBytes() < total) {
                    return;
                }
                answered(ctx, in);
                pending.clear();
            }
        } finally {
            in.release();
        }
    }

    private void answered(ChannelHandlerContext ctx, ByteBuf rest) {
        byte type = pending.getByte(TYPE_OFFSET);
        int bodyLength = pending.readableBytes() - HEADER_LENGTH;
        if (type == ERROR && bodyLength >= 2) {
            String message = pending.toString(HEADER_LENGTH + 2, bodyLength - 2, StandardCharsets.UTF_8);
            fail(ctx, serverName + " refused the connection: " + message);
        } else if (type == CHALLENGE && !proved && bodyLength == ClusterSecret.NONCE_LENGTH + ClusterSecret.PROOF_LENGTH) {
            byte[] serverNonce = new byte[ClusterSecret.NONCE_LENGTH];
            byte[] proof = new byte[ClusterSecret.PROOF_LENGTH];
            pending.getBytes(HEADER_LENGTH, serverNonce);
            pending.getBytes(HEADER_LENGTH + ClusterSecret.NONCE_LENGTH, proof);
            if (!ClusterSecret.same(secret.serverProof(magic, clientNonce, serverNonce), proof)) {
                fail(ctx, serverName + " does not share this client's cluster secret (its proof does not match "
                        + secret.source() + "); nothing was sent to it");
                return;
            }
            proved = true;
            ctx.writeAndFlush(frame(ctx.alloc(), magic, version, PROOF, 0,
                    secret.clientProof(magic, clientNonce, serverNonce)));
        } else if (type == WELCOME && proved && bodyLength == 0) {
            ByteBuf early = rest.isReadable() ? rest.retainedSlice() : null;
            rest.skipBytes(rest.readableBytes());
            ctx.pipeline().remove(this);
            ready.setSuccess(null);
            ctx.fireChannelActive();
            if (early != null) {
                ctx.fireChannelRead(early);
                ctx.fireChannelReadComplete();
            }
        } else {
            fail(ctx, serverName + " answered the cluster handshake with frame type "
                    + String.format("0x%02X", type & 0xFF) + " (a server without cluster authentication?)");
        }
    }

    private void fail(ChannelHandlerContext ctx, String why) {
        if (ready.tryFailure(new ClusterAuthException(why))) {
            ctx.channel().config().setAutoRead(false);
            ctx.close();
        }
    }
}
