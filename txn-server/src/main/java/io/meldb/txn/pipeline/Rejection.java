package io.meldb.txn.pipeline;

/**
 * An intention every replica rejects alike before meld looks at it: malformed, from a fenced-off incarnation,
 * with a snapshot older than the cluster keeps, or an empty nudge (which only completes a group-meld pair and
 * answers nobody).
 */
final class Rejection extends Decidable {
    /** The reject reason of an empty intention: it only completes a group-meld pair. */
    static final String NUDGE = "nudge";

    private final String reason;

    Rejection(final long csn, final int serverId, final long incarnation, final long sequence,
              final String reason) {
        super(csn, serverId, incarnation, sequence);
        this.reason = reason;
    }

    @Override
    String rejectReason() {
        return reason;
    }

    boolean nudge() {
        return reason == NUDGE;
    }
}
