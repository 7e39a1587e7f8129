package io.meldb.core;

/**
 * An intention record that cannot be decoded (intention codec, meld paper App. E). Thrown before anything from
 * the record is registered in the {@link NodeDirectory}, so the decoded state is exactly as before the call.
 */
public final class IntentionFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public IntentionFormatException(final String message) {
        super(message);
    }

    public IntentionFormatException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
