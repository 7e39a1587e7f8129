package io.meldb.wire.auth;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

import static io.meldb.wire.auth.ClusterAuthProtocol.*;
import static io.meldb.wire.FrameFormat.*;

/**
 * The server side of the cluster handshake ({@link ClusterAuthProtocol}) on one connection: first in the pipeline,
 * it holds back the connection's activation and every byte until the client has proven the cluster secret, then
 * removes itself and lets the port's own handlers see an ordinary new connection.
 *
 * <p>Before that, the client can make the server hold at most one handshake frame (52 bytes): a header announcing
 * anything else, or a frame of another type, is refused at once without reading its body, and a handshake not
 * finished within the timeout is refused too. Every refusal is answered with the protocol's ERROR frame (carrying
 * the request id of the refused frame when it has one, so that an old client's pending request gets the answer),
 * logged once and counted; then the connection is closed.
 */
public final class ClusterAuthServerHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterAuthServerHandler.class);
    private static final int HELLO_LENGTH = HEADER_LENGTH + ClusterSecret.NONCE_LENGTH;
    private static final int PROOF_LENGTH = HEADER_LENGTH + ClusterSecret.PROOF_LENGTH;

    private final ClusterAuthServer auth;
    private final ByteBuf pending = Unpooled.buffer(HELLO_LENGTH, HELLO_LENGTH);
    private byte[] clientNonce;
    private byte[] serverNonce;
    private boolean done;
    private ScheduledFuture<?> timeout;

    ClusterAuthServerHandler(ClusterAuthServer auth) {
        this.auth = auth;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        timeout = ctx.executor().schedule(() -> refuse(ctx, 0, "the cluster handshake was not completed within "
                + TimeUnit.NANOSECONDS.toMillis(auth.handshakeTimeoutNanos()) + " ms"), auth.handshakeTimeoutNanos(),
                TimeUnit.NANOSECONDS);
        // the port's handlers learn of the connection once it is authenticated
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // still here: the connection was never admitted, and the port's handlers never saw it
        cancelTimeout();
        if (!done && serverNonce != null) {
            done = true;
            auth.countRefused();
            LOG.warn("{}: the client at {} hung up after the challenge (it holds another cluster secret?)",
                    auth.portName(), ctx.channel().remoteAddress());
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancelTimeout();
        pending.release();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (done || !(msg instanceof ByteBuf in)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        try {
            while (in.isReadable() && !done) {
                int want = (serverNonce == null ? HELLO_LENGTH : PROOF_LENGTH) - pending.readableBytes();
                pending.writeBytes(in, Math.min(want, in.readableBytes()));
                if (!headerSound(ctx)) {
                    return;
                }
                if (pending.readableBytes() < (serverNonce == null ? HELLO_LENGTH : PROOF_LENGTH)) {
                    return;
                }
                if (serverNonce == null) {
                    challenge(ctx);
                } else {
                    verify(ctx, in);
                    return;
                }
            }
        } finally {
            in.release();
        }
    }

    /** Checks what has arrived of the header so far; refuses the connection as soon as it cannot be the next step. */
    private boolean headerSound(ChannelHandlerContext ctx) {
        int n = pending.readableBytes();
        byte expectedType = serverNonce == null ? HELLO : PROOF;
        int expectedLength = (serverNonce == null ? HELLO_LENGTH : PROOF_LENGTH) - LENGTH_FIELD_LENGTH;
        if (n >= MAGIC_OFFSET + 4 && pending.getInt(MAGIC_OFFSET) != auth.magic()) {
            refuse(ctx, 0, String.format("bad magic 0x%08X: this is not a MeldDB client of %s", pending.getInt(MAGIC_OFFSET),
                    auth.portName()));
            return false;
        }
        if (n < HEADER_LENGTH) {
            return true; // the rest is judged on the whole header, so a refusal can name the request it answers
        }
        if (pending.getByte(VERSION_OFFSET) != auth.version() || pending.getByte(TYPE_OFFSET) != expectedType) {
            long requestId = pending.getLong(REQUEST_ID_OFFSET);
            refuse(ctx, requestId, pending.getByte(TYPE_OFFSET) == expectedType
                    ? "protocol version " + pending.getByte(VERSION_OFFSET) + " (this side speaks " + auth.version() + ")"
                    : auth.portName() + " requires the cluster secret: this client did not present one"
                    + " (set --cluster-secret-file or " + ClusterSecret.ENVIRONMENT + " to the cluster's secret file)");
            return false;
        }
        if (pending.getInt(LENGTH_OFFSET) != expectedLength) {
            refuse(ctx, 0, "a cluster handshake frame of " + totalLengthOf() + " bytes; expected " + (expectedLength
                    + LENGTH_FIELD_LENGTH));
            return false;
        }
        return true;
    }

    private long totalLengthOf() {
        return ClusterAuthProtocol.totalLength(pending);
    }

    private void challenge(ChannelHandlerContext ctx) {
        clientNonce = new byte[ClusterSecret.NONCE_LENGTH];
        pending.getBytes(HEADER_LENGTH, clientNonce);
        pending.clear();
        serverNonce = ClusterSecret.nonce();
        byte[] proof = auth.secret().serverProof(auth.magic(), clientNonce, serverNonce);
        ctx.writeAndFlush(frame(ctx.alloc(), auth.magic(), auth.version(), CHALLENGE, 0, serverNonce, proof));
    }

    private void verify(ChannelHandlerContext ctx, ByteBuf rest) {
        byte[] proof = new byte[ClusterSecret.PROOF_LENGTH];
        pending.getBytes(HEADER_LENGTH, proof);
        if (!ClusterSecret.same(auth.secret().clientProof(auth.magic(), clientNonce, serverNonce), proof)) {
            refuse(ctx, 0, auth.portName() + " refused the cluster secret: this client's secret is not the cluster's");
            return;
        }
        done = true;
        auth.countAdmitted();
        ctx.writeAndFlush(frame(ctx.alloc(), auth.magic(), auth.version(), WELCOME, 0));
        ByteBuf early = rest.isReadable() ? rest.retainedSlice() : null;
        ctx.pipeline().remove(this);
        ctx.fireChannelActive();
        if (early != null) {
            ctx.fireChannelRead(early);
            ctx.fireChannelReadComplete();
        }
    }

    private void refuse(ChannelHandlerContext ctx, long requestId, String why) {
        if (done || !ctx.channel().isActive()) {
            return;
        }
        done = true;
        cancelTimeout();
        auth.countRefused();
        LOG.warn("{}: refused the connection from {}: {}", auth.portName(), ctx.channel().remoteAddress(), why);
        ctx.channel().config().setAutoRead(false);
        ctx.writeAndFlush(error(ctx.alloc(), auth.magic(), auth.version(), requestId, auth.refusalCode(), why))
                .addListener(ChannelFutureListener.CLOSE);
    }

    private void cancelTimeout() {
        if (timeout != null) {
            timeout.cancel(false);
            timeout = null;
        }
    }
}
