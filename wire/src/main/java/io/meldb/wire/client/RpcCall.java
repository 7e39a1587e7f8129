package io.meldb.wire.client;

import io.netty.channel.Channel;

/**
 * One request of a framed RPC waiting for its answer, as {@link RpcClientCore} tracks it: request id, request type,
 * deadline, and whether (and on which connection) it was sent. Each client subclasses it with its future and how an
 * answer or a failure completes it.
 */
public abstract class RpcCall {
    private final long id;
    private final byte type;
    private final long deadline;
    private volatile Channel channel;

    /** {@code deadline}: a {@link System#nanoTime()} past which the call fails as unanswered. */
    protected RpcCall(final long id, final byte type, final long deadline) {
        this.id = id;
        this.type = type;
        this.deadline = deadline;
    }

    public final long id() {
        return id;
    }

    public final byte type() {
        return type;
    }

    public final long deadline() {
        return deadline;
    }

    /** Whether the request went out on a connection (a failure of that connection then fails it). */
    public final boolean sent() {
        return channel != null;
    }

    /** The connection the request went out on; null while it waits to be sent. */
    public final Channel channel() {
        return channel;
    }

    /** Marks the request as written to {@code ch}. */
    public final void sentOn(final Channel ch) {
        channel = ch;
    }
}
