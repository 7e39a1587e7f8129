package io.meldb.txn.rpc;

import io.netty.handler.codec.CorruptedFrameException;

/**
 * The byte stream broke the transaction RPC in a way that cannot be recovered (bad magic, unknown version,
 * impossible length). Netty's {@link CorruptedFrameException}, so it flows through {@code exceptionCaught} like any
 * codec failure; the server answers BAD_REQUEST and closes that connection only.
 */
public final class TxnProtocolException extends CorruptedFrameException {
    private static final long serialVersionUID = 1L;

    public TxnProtocolException(String message) {
        super(message);
    }
}
