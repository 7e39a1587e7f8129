package io.meldb.core;

/**
 * Why meld aborted an intention, for the error the client sees. Deterministic like the decision itself: every
 * replica that aborts an intention finds the same reason.
 */
public final class AbortReason {
    /** Not aborted. */
    public static final int NONE = 0;
    /** A read or write conflicts with a transaction that committed after the snapshot (or a range changed). */
    public static final int CONFLICT = 1;
    /** An increment's key is deleted in the last committed state. */
    public static final int INCREMENT_ABSENT = 2;
    /** An increment's field lies outside the committed value. */
    public static final int INCREMENT_NO_FIELD = 3;
    /** An increment's field is null in the committed value. */
    public static final int INCREMENT_NULL = 4;
    /** The committed value plus the delta leaves the field's bounds (overflow or out of range). */
    public static final int INCREMENT_OUT_OF_RANGE = 5;

    private AbortReason() {
    }

    public static String describe(final int reason) {
        return switch (reason) {
            case NONE -> "none";
            case CONFLICT -> "conflict with a concurrent transaction";
            case INCREMENT_ABSENT -> "increment of a key that a concurrent transaction deleted";
            case INCREMENT_NO_FIELD -> "increment of a field beyond the end of the committed value";
            case INCREMENT_NULL -> "increment of a null field";
            case INCREMENT_OUT_OF_RANGE -> "increment result out of the field's range";
            default -> "reason " + reason;
        };
    }
}
