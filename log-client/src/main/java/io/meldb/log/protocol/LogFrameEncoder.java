package io.meldb.log.protocol;

import io.meldb.wire.FrameEncoder;
import io.netty.channel.ChannelHandler;

/** Writes {@link LogFrame}s of the log protocol (Hyder II §5.1 operations); see {@link FrameEncoder}. */
@ChannelHandler.Sharable
public final class LogFrameEncoder extends FrameEncoder<LogFrame> {
    public static final LogFrameEncoder INSTANCE = new LogFrameEncoder();

    private LogFrameEncoder() {
        super(LogProtocol.FORMAT);
    }
}
