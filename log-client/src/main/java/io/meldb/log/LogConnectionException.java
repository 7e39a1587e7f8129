package io.meldb.log;

/**
 * (Client of the Hyder II §5.1 log service.) The connection to the log server failed or was lost while a request was in flight. As with a timeout, an
 * APPEND that fails this way may or may not have been stored.
 */
public class LogConnectionException extends LogException {
    private static final long serialVersionUID = 1L;

    public LogConnectionException(String message) {
        super(message);
    }

    public LogConnectionException(String message, Throwable cause) {
        super(message, cause);
    }
}
