package io.meldb.wire;

import io.netty.buffer.ByteBuf;

/**
 * The framing shared by the log protocol ({@code io.meldb.log.protocol.LogProtocol}) and the transaction RPC: one length-prefixed header,
 * each protocol with its own magic, version and frame types. An instance names one protocol, for its codec
 * ({@link FrameDecoder}, {@link FrameEncoder}); the constants below own the header layout.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |             frameLength (bytes after this field)              |  0
 *  +---------------------------------------------------------------+
 *  |                   magic (one per protocol)                    |  4
 *  +---------------+---------------+-------------------------------+
 *  |    version    |     type      |           reserved (0)        |  8
 *  +---------------+---------------+-------------------------------+
 *  |                          requestId                            | 12
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |  body (frameLength - 16 bytes), layout depends on type        | 20
 *  +---------------------------------------------------------------+
 * </pre>
 * All integers are big-endian (network order). An ERROR frame's body is a short code and a UTF-8 message
 * ({@link Frame#errorBody}).
 *
 * @param <F> the protocol's frame class
 */
public final class FrameFormat<F extends Frame> {
    public static final int LENGTH_OFFSET = 0;
    public static final int MAGIC_OFFSET = 4;
    public static final int VERSION_OFFSET = 8;
    public static final int TYPE_OFFSET = 9;
    public static final int RESERVED_OFFSET = 10;
    public static final int REQUEST_ID_OFFSET = 12;
    public static final int HEADER_LENGTH = 20;
    /** frameLength counts everything after the length field. */
    public static final int LENGTH_FIELD_LENGTH = 4;
    public static final int MIN_FRAME_LENGTH = HEADER_LENGTH - LENGTH_FIELD_LENGTH;

    /** Builds a protocol's frame from a decoded header and body (its constructor). */
    @FunctionalInterface
    public interface Factory<F extends Frame> {
        F frame(byte type, long requestId, ByteBuf body);
    }

    private final String name;
    private final int magic;
    private final byte version;
    private final Class<F> frameClass;
    private final Factory<F> factory;

    /**
     * @param name names the protocol in error messages ("the log protocol")
     */
    public FrameFormat(String name, int magic, byte version, Class<F> frameClass, Factory<F> factory) {
        this.name = name;
        this.magic = magic;
        this.version = version;
        this.frameClass = frameClass;
        this.factory = factory;
    }

    public String name() {
        return name;
    }

    public int magic() {
        return magic;
    }

    public byte version() {
        return version;
    }

    public Class<F> frameClass() {
        return frameClass;
    }

    F frame(byte type, long requestId, ByteBuf body) {
        return factory.frame(type, requestId, body);
    }

    public void writeHeader(ByteBuf out, int bodyLength, byte type, long requestId) {
        out.writeInt(MIN_FRAME_LENGTH + bodyLength)
                .writeInt(magic)
                .writeByte(version)
                .writeByte(type)
                .writeShort(0)
                .writeLong(requestId);
    }

    @Override
    public String toString() {
        return name;
    }
}
