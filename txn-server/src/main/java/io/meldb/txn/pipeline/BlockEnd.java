package io.meldb.txn.pipeline;

/** The end of log block {@code position}: the meld stage publishes its LCS and records the position as processed. */
final class BlockEnd extends PipelineMessage {
    final long position;

    BlockEnd(final long position) {
        this.position = position;
    }
}
