package io.meldb.txn.api;

/** Every failure of the transaction layer, with a {@link TxnError} code a caller can act on. */
public final class TxnException extends RuntimeException {
    private final TxnError error;

    public TxnException(final TxnError error, final String message) {
        super(message);
        this.error = error;
    }

    public TxnException(final TxnError error, final String message, final Throwable cause) {
        super(message, cause);
        this.error = error;
    }

    public TxnError error() {
        return error;
    }
}
