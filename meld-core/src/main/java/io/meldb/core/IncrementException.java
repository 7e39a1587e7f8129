package io.meldb.core;

/** {@link Transaction#add} refused an increment; {@link #reason()} is one of the {@link AbortReason} increment codes. */
public final class IncrementException extends IllegalStateException {
    private static final long serialVersionUID = 1L;
    private final int reason;

    public IncrementException(final int reason, final String message) {
        super(message);
        this.reason = reason;
    }

    public int reason() {
        return reason;
    }
}
