package io.meldb.wire.client;

import io.meldb.wire.Frame;
import io.netty.channel.ChannelHandler;

/** What differs between the framed RPCs a {@link RpcClientCore} can speak: their codec and their keepalive request. */
public interface RpcProtocol {
    /** A new decoder for one connection (decoders keep per-connection state). */
    ChannelHandler newDecoder();

    /** The encoder, shared by every connection. */
    ChannelHandler encoder();

    /** A cheap request whose answer matches nothing, sent when a connection has written nothing for a while. */
    Frame keepalive(long requestId);
}
