package io.meldb.txn.protocol;

import io.meldb.wire.FrameEncoder;
import io.netty.channel.ChannelHandler;

/** Writes {@link TxnFrame}s of the transaction RPC; see {@link FrameEncoder}. */
@ChannelHandler.Sharable
public final class TxnFrameEncoder extends FrameEncoder<TxnFrame> {
    public static final TxnFrameEncoder INSTANCE = new TxnFrameEncoder();

    private TxnFrameEncoder() {
        super(TxnRpcProtocol.FORMAT);
    }
}
