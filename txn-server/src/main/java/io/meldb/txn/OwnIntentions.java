package io.meldb.txn;

import io.meldb.core.Transaction;
import io.meldb.txn.checkpoint.Generation;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * The intentions this server appended whose records its log reader has not reached yet, each with the transaction
 * tree it was encoded from (meld paper App. E: the tree "can be used by meld in the same server to avoid unnecessary
 * deserialization"). The reader takes the entry of each record of its own, in log order, and melds a copy of the
 * tree made for that record's CSN instead of decoding the bytes it read back (see
 * {@code io.meldb.core.IntentionCopier}); the copy is field for field the decoded intention, so meld order stays
 * log order and every replica, adopting or decoding, reaches the same state. An entry whose record never comes
 * (its append failed) is taken back by the session's failure handling; whoever takes an entry releases it.
 * Keyed by the transaction's sequence, which is unique within this process.
 */
public final class OwnIntentions {
    /** A held intention: the session's workspace, which goes back to its pool once {@link #release}d. */
    public abstract static class Held {
        private Transaction txn;
        private int intentionFlags;
        private Generation generation;
        private long incarnation;

        /** The tree, the intention flags it was encoded with, and the generation its snapshot lies in. */
        public final void hold(final Transaction txn, final int intentionFlags, final Generation generation,
                               final long incarnation) {
            this.txn = txn;
            this.intentionFlags = intentionFlags;
            this.generation = generation;
            this.incarnation = incarnation;
        }

        public final Transaction txn() {
            return txn;
        }

        public final int intentionFlags() {
            return intentionFlags;
        }

        public final Generation generation() {
            return generation;
        }

        /** Done with the tree: the memory it lies in may be reused. */
        public final void release() {
            txn = null;
            generation = null;
            released();
        }

        protected abstract void released();
    }

    private final Long2ObjectHashMap<Held> bySequence = new Long2ObjectHashMap<>();

    /** Keeps {@code held} for the record of transaction {@code sequence}; before the record is appended. */
    public synchronized void put(final long sequence, final Held held) {
        bySequence.put(sequence, held);
    }

    /** The held intention of transaction (incarnation, sequence), removed; null if none (the caller releases it). */
    public synchronized Held take(final long incarnation, final long sequence) {
        final Held held = bySequence.get(sequence);
        if (held == null || held.incarnation != incarnation) {
            return null;
        }
        bySequence.remove(sequence);
        return held;
    }

    /** Takes and releases the held intention of a record that will not be melded from it (rejected, never appended). */
    public void drop(final long incarnation, final long sequence) {
        final Held held = take(incarnation, sequence);
        if (held != null) {
            held.release();
        }
    }

    /** Intentions held now. */
    public synchronized int size() {
        return bySequence.size();
    }
}
