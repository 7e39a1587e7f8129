package io.meldb.bench.replication;

import java.util.concurrent.CompletableFuture;

/** One replication engine under test: a 3-replica log on loopback that appends blocks and can lose its leader. */
interface Candidate extends AutoCloseable {
    /** Appends one block; completes once the engine's quorum holds it (majority, or the ack quorum). */
    CompletableFuture<Void> append(byte[] block);

    /**
     * Stops the current leader (Ratis) or abandons the current writer (BookKeeper) without a clean hand-over, and
     * returns once a block appended through the replacement has been acknowledged.
     */
    void failLeaderAndAppend(byte[] block) throws Exception;

    /** What the engine was configured with, for the report. */
    String describe();
}
