package io.meldb.log.protocol;

import io.meldb.wire.FrameDecoder;

/** Splits the byte stream of the log protocol (Hyder II §5.1 operations) into {@link LogFrame}s; see {@link FrameDecoder}. */
public final class LogFrameDecoder extends FrameDecoder {
    public LogFrameDecoder(int maxFrameLength) {
        super(LogProtocol.FORMAT, maxFrameLength);
    }
}
