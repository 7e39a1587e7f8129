package io.meldb.core;

import org.agrona.DirectBuffer;

/**
 * Receives each finished intention block from a {@link BlockWriter} (Hyder II §5.1: the unit appended to the log).
 * The buffer is reused for the next block: copy or append it before returning.
 */
@FunctionalInterface
public interface BlockSink {
    /** {@code length} is always the writer's block size. */
    void onBlock(DirectBuffer block, int offset, int length);
}
