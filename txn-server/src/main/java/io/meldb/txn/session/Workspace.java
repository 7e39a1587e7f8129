package io.meldb.txn.session;

import io.meldb.core.Arena;
import io.meldb.core.IntentionEncoder;
import org.agrona.ExpandableDirectByteBuffer;

/**
 * A session's reusable memory: the arena its intention is built in and the buffer it is encoded into
 * (Hyder II §5.3: per-thread pools instead of allocation per transaction). Pooled by {@link Sessions}.
 */
final class Workspace extends io.meldb.txn.OwnIntentions.Held {
    /** Past this the record buffer is dropped after its commit, so a rare huge transaction pins no memory. */
    static final int KEEP_RECORD_BYTES = 8 << 20;
    /** Past this the arena's segments go back to the shared pool instead of staying with this workspace. */
    static final long KEEP_ARENA_BYTES = 16L << 20;
    /** Past this many nodes the encoder's work arrays (16 bytes a node) are dropped too. */
    static final int KEEP_ENCODER_NODES = 1 << 16;
    /** Where the workspace goes back once the log reader is done with a held intention (see {@link #released}). */
    private final Sessions pool;
    Arena arena = new Arena();
    ExpandableDirectByteBuffer record = new ExpandableDirectByteBuffer(4096);
    IntentionEncoder encoder = new IntentionEncoder();
    final io.meldb.core.Transaction.Scratch scratch = new io.meldb.core.Transaction.Scratch();

    Workspace(final Sessions pool) {
        this.pool = pool;
    }

    /** The log reader melded (or dropped) the intention this workspace held: back to the pool. */
    @Override
    protected void released() {
        pool.recycle(this);
    }

    /** After a transaction ended (nothing points into the arena any more). */
    void trim() {
        if (record.capacity() > KEEP_RECORD_BYTES) {
            record = new ExpandableDirectByteBuffer(4096);
        }
        if (encoder.capacity() > KEEP_ENCODER_NODES) {
            encoder = new IntentionEncoder();
        }
        if (arena.reservedBytes() > KEEP_ARENA_BYTES) {
            arena.close();
            arena = new Arena();
        }
    }
}
