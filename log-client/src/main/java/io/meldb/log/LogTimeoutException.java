package io.meldb.log;

/**
 * (Client of the Hyder II §5.1 log service.) A request got no answer within the client's request timeout. For an APPEND the outcome is unknown: the
 * block may or may not be in the log (read the tail and the blocks after the last known position to find out).
 */
public class LogTimeoutException extends LogException {
    private static final long serialVersionUID = 1L;

    public LogTimeoutException(String message) {
        super(message);
    }
}
