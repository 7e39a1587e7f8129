package io.meldb.txn.pipeline;

import io.meldb.core.Intention;

/**
 * An intention on its way through the stages (Hyder II §5.2, Algorithm 1). The reader creates it; each later stage
 * fills in its own part and publishes it with a volatile flag the next one waits on:
 * <ul>
 *   <li>reader: the record's bytes, its snapshot CSN and log position (or, decoding in line, the decoded
 *       intention);</li>
 *   <li>deserializer thread csn mod N: {@link #intention} or {@link #malformed}, then {@link #decoded};</li>
 *   <li>premeld thread csn mod t: {@link #premelded}, then {@link #premeldDone};</li>
 *   <li>meld thread: the decision (see {@link Decidable}), then the reply queue.</li>
 * </ul>
 * One object per intention, allocated by the reader (off the meld thread) and dropped after the reply; the meld
 * thread allocates nothing for it.
 */
final class IntentionMessage extends Decidable {
    /** For a deserializer thread: the intention's bytes (behind the log header); dropped once decoded. */
    byte[] record;
    /** Bytes of {@link #record} that hold the record (the buffer is reused, so may be longer). */
    int recordLength;
    final long snapshotCsn;
    final long position;
    Intention intention;
    boolean malformed;
    volatile boolean decoded;
    /** The intention final meld takes (null if premeld aborted it). */
    Intention premelded;
    volatile boolean premeldDone;
    /**
     * When the log delivered its block, the reader took the block, it was decoded and meld decided it
     * ({@link io.meldb.txn.CommitPathProfile}); each written by its stage before the hand-off that publishes it,
     * read only by the reply stage, never by meld.
     */
    long deliveredNanos;
    long readNanos;
    long decodedNanos;
    long meldedNanos;

    IntentionMessage(final long csn, final int serverId, final long incarnation, final long sequence,
                     final long snapshotCsn, final long position) {
        super(csn, serverId, incarnation, sequence);
        this.snapshotCsn = snapshotCsn;
        this.position = position;
    }

    @Override
    String rejectReason() {
        return malformed ? "malformed" : null;
    }
}
