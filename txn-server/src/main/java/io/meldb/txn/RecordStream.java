package io.meldb.txn;

import org.agrona.DirectBuffer;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * This server's own block stream in the log (Hyder II §5.1: each server frames its records into blocks of its
 * own): the session side appends intentions through it, the checkpoint side checkpoint records.
 */
public interface RecordStream {
    /** Appends one framed record; completes with the position of its last block once every block is in. */
    CompletableFuture<Long> append(DirectBuffer record, int length);

    /** Appends one framed record; one future per block, in order. */
    List<CompletableFuture<Long>> appendBlocks(DirectBuffer record, int length);
}
