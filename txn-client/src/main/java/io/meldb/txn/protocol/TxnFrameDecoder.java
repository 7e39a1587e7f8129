package io.meldb.txn.protocol;

import io.meldb.wire.FrameBudget;
import io.meldb.wire.FrameDecoder;

/**
 * Splits the byte stream of the transaction RPC into {@link TxnFrame}s; used by server and client alike. See
 * {@link FrameDecoder}: a broken stream throws once and is ignored after, an oversized frame is skipped.
 */
public final class TxnFrameDecoder extends FrameDecoder {
    public TxnFrameDecoder(int maxFrameLength) {
        super(TxnRpcProtocol.FORMAT, maxFrameLength);
    }

    /** A server connection's decoder: incomplete frames count against the server's {@code budget}. */
    public TxnFrameDecoder(int maxFrameLength, FrameBudget budget) {
        super(TxnRpcProtocol.FORMAT, maxFrameLength, budget);
    }
}
