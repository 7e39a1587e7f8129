package io.meldb.log.client;

import io.meldb.log.LogException;
import io.netty.buffer.ByteBuf;

/**
 * The log reader's side of a subscription (Hyder II §5.1: each server's log reader feeds the meld pipeline): receives
 * the blocks, in log order, on the subscription's I/O thread. A listener that takes long
 * slows its own subscription down (the server stops pushing when the connection backs up), not the log.
 */
public interface BlockListener {
    /** The block at {@code position}; {@code block} is valid only during the call (retain or copy to keep it). */
    void onBlock(long position, ByteBuf block);

    /** The subscription ended and will deliver nothing more (for example {@code TRIMMED}: resume from a checkpoint). */
    default void onError(LogException error) {
    }
}
