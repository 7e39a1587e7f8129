package io.meldb.txn.rpc;

/**
 * Emitted by {@link TxnFrameDecoder} instead of a frame whose length exceeds the limit. The header was intact, so
 * the decoder skips the body and the stream stays in sync: the request gets a {@link io.meldb.txn.TxnError#TOO_LARGE}
 * answer and the connection lives on.
 */
public record TxnFrameTooLarge(byte type, long requestId, long frameLength, int maxFrameLength) {
}
