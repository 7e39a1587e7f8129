package io.meldb.log;

/**
 * The log service (Hyder II §5.1) answered a request with an error (or the storage refused an operation). {@link #code()} is the
 * server's {@link ErrorCode}, so callers can tell a {@link ErrorCode#TRIMMED TRIMMED} read (go to a checkpoint)
 * from a {@link ErrorCode#PAST_TAIL PAST_TAIL} read (wait) without parsing messages.
 */
public class LogErrorException extends LogException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;

    public LogErrorException(ErrorCode code, String message) {
        super(code + ": " + message);
        this.code = code;
    }

    public LogErrorException(ErrorCode code, String message, Throwable cause) {
        super(code + ": " + message, cause);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }
}
