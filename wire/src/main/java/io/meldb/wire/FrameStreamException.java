package io.meldb.wire;

import io.netty.handler.codec.CorruptedFrameException;

/**
 * The byte stream broke the framing ({@link FrameFormat}) in a way that cannot be recovered: bad magic, unknown
 * version, impossible length. Netty's {@link CorruptedFrameException}, so it flows through {@code exceptionCaught}
 * like any codec failure; a server answers it with an ERROR (request id 0) and closes that connection only
 * ({@link FrameServerHandler}).
 */
public final class FrameStreamException extends CorruptedFrameException {
    private static final long serialVersionUID = 1L;

    /** What was wrong with the stream. */
    public enum Fault {
        BAD_MAGIC,
        BAD_VERSION,
        /** The length field is shorter than the header. */
        BAD_LENGTH
    }

    private final Fault fault;

    public FrameStreamException(Fault fault, String message) {
        super(message);
        this.fault = fault;
    }

    public Fault fault() {
        return fault;
    }
}
