package io.meldb.txn.pipeline;

/**
 * A message the meld stage decides (commit or abort at its CSN) and the reply stage then reports: who appended it
 * (final, set by the reader), and the decision with the final-meld work done for it (written by the meld thread
 * before it queues the message to the reply thread; the queue hand-off publishes them). The meld thread keeps no
 * other object per intention, so it allocates nothing for a decision (Hyder II §5.3).
 */
abstract sealed class Decidable extends PipelineMessage permits IntentionMessage, Rejection {
    final long csn;
    final int serverId;
    final long incarnation;
    final long sequence;
    // the decision: meld thread, then reply thread
    boolean committed;
    /** Why meld aborted it ({@link io.meldb.core.AbortReason}); meaningful only when not committed. */
    int abortReason;
    long finalMelds;
    long nodesVisited;
    long conflictZone;
    long effectiveConflictZone;
    /** How often the transaction had restarted when it wrote its intention (the count in the intention's flags). */
    int restarts;

    Decidable(final long csn, final int serverId, final long incarnation, final long sequence) {
        this.csn = csn;
        this.serverId = serverId;
        this.incarnation = incarnation;
        this.sequence = sequence;
    }

    /** Why every replica rejects it without melding, or null when meld judges it. */
    abstract String rejectReason();
}
