package io.meldb.log;

/** Base of every exception of the log service (Hyder II §5.1) client and storage; unchecked so futures can carry it. */
public class LogException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LogException(String message) {
        super(message);
    }

    public LogException(String message, Throwable cause) {
        super(message, cause);
    }
}
