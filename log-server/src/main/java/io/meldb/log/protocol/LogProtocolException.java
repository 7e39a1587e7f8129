package io.meldb.log.protocol;

import io.meldb.log.ErrorCode;
import io.netty.handler.codec.CorruptedFrameException;

/**
 * The byte stream broke the log protocol (Hyder II §5.1 operations) in a way that cannot be recovered (bad magic, unknown version, impossible
 * length). Netty's {@link CorruptedFrameException}, so it flows through {@code exceptionCaught} like any codec
 * failure; it carries the {@link ErrorCode} to answer with before the connection is closed.
 */
public final class LogProtocolException extends CorruptedFrameException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;

    public LogProtocolException(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }
}
