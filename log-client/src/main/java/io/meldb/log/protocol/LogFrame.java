package io.meldb.log.protocol;

import io.meldb.wire.Frame;
import io.meldb.wire.FrameFormat;
import io.meldb.log.ErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;

import java.util.UUID;

import static io.meldb.log.protocol.LogProtocol.*;

/**
 * One frame of the log protocol (Hyder II §5.1 operations, layout in {@link LogProtocol}): type, request id and
 * body on the shared framing ({@link Frame}); the static factories build every frame type.
 */
public final class LogFrame extends Frame {
    public LogFrame(byte type, long requestId, ByteBuf body) {
        super(type, requestId, body);
    }

    @Override
    public String typeName() {
        return LogProtocol.typeName(type());
    }

    /** Code of an ERROR frame. */
    public ErrorCode errorCode() {
        return ErrorCode.fromCode(errorCodeValue());
    }

    @Override
    public LogFrame replace(ByteBuf content) {
        return new LogFrame(type(), requestId(), content);
    }

    // ---------------------------------------------------------------------------------------- requests

    public static LogFrame create(ByteBufAllocator alloc, long requestId, int blockSize, byte[] config) {
        ByteBuf b = alloc.buffer(8 + config.length).writeInt(blockSize).writeInt(config.length).writeBytes(config);
        return new LogFrame(CREATE, requestId, b);
    }

    /** Takes ownership of {@code block}. */
    public static LogFrame append(long requestId, ByteBuf block) {
        return new LogFrame(APPEND, requestId, block);
    }

    public static LogFrame read(ByteBufAllocator alloc, long requestId, long position, int count) {
        return new LogFrame(READ, requestId, alloc.buffer(12).writeLong(position).writeInt(count));
    }

    public static LogFrame tail(long requestId) {
        return new LogFrame(TAIL, requestId, Unpooled.EMPTY_BUFFER);
    }

    public static LogFrame trim(ByteBufAllocator alloc, long requestId, long position) {
        return new LogFrame(TRIM, requestId, alloc.buffer(8).writeLong(position));
    }

    public static LogFrame subscribe(ByteBufAllocator alloc, long requestId, long from) {
        return new LogFrame(SUBSCRIBE, requestId, alloc.buffer(8).writeLong(from));
    }

    public static LogFrame unsubscribe(ByteBufAllocator alloc, long requestId, long subscribeRequestId) {
        return new LogFrame(UNSUBSCRIBE, requestId, alloc.buffer(8).writeLong(subscribeRequestId));
    }

    // ---------------------------------------------------------------------------------------- answers

    public static LogFrame created(ByteBufAllocator alloc, long requestId, int blockSize, UUID logId) {
        return new LogFrame(CREATED, requestId, writeLogId(alloc.buffer(20).writeInt(blockSize), logId));
    }

    /**
     * The whole APPENDED answer, header and position, encoded into one buffer that the pipeline's encoder passes
     * through: every append is answered this way, so it is built without a frame object or a separate body buffer.
     */
    public static ByteBuf appendedFrame(ByteBufAllocator alloc, long requestId, long position) {
        ByteBuf out = alloc.ioBuffer(FrameFormat.HEADER_LENGTH + 8);
        LogProtocol.FORMAT.writeHeader(out, 8, APPENDED, requestId);
        return out.writeLong(position);
    }

    /** The header of a BLOCKS answer; the caller writes {@code count} blocks after it. */
    public static ByteBuf blocksBody(ByteBufAllocator alloc, long position, int count, int blockSize) {
        return alloc.ioBuffer(16 + count * blockSize).writeLong(position).writeInt(count).writeInt(blockSize);
    }

    public static LogFrame tailIs(ByteBufAllocator alloc, long requestId, long tail, long trimPoint, int blockSize,
                                  UUID logId) {
        return new LogFrame(TAIL_IS, requestId,
                writeLogId(alloc.buffer(36).writeLong(tail).writeLong(trimPoint).writeInt(blockSize), logId));
    }

    /**
     * TAIL_IS of a replica of a replicated log (issue 22): as above, then the leader's log address as this replica
     * knows it ({@code short} length and UTF-8 {@code host:port}; length 0 when it knows none), so that a client finds
     * the leader on connecting. Older clients read the fixed fields and ignore the rest.
     */
    public static LogFrame tailIs(ByteBufAllocator alloc, long requestId, long tail, long trimPoint, int blockSize,
                                  UUID logId, String leader) {
        byte[] l = leader == null ? new byte[0] : leader.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ByteBuf body = writeLogId(alloc.buffer(38 + l.length).writeLong(tail).writeLong(trimPoint).writeInt(blockSize), logId);
        return new LogFrame(TAIL_IS, requestId, body.writeShort(l.length).writeBytes(l));
    }

    /** The leader's address in a replica's TAIL_IS answer, or null (none known, or a server at r = 1). */
    public String leaderInTail() {
        if (bodyLength() < 38) {
            return null;
        }
        int length = body().getUnsignedShort(body().readerIndex() + 36);
        if (length == 0 || bodyLength() < 38 + length) {
            return null;
        }
        return body().toString(body().readerIndex() + 38, length, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** A log id as 16 bytes (zeros for none: a log not yet created). */
    private static ByteBuf writeLogId(ByteBuf body, UUID logId) {
        return logId == null ? body.writeZero(16)
                : body.writeLong(logId.getMostSignificantBits()).writeLong(logId.getLeastSignificantBits());
    }

    /**
     * The log id in a CREATED ({@code at} 4) or TAIL_IS ({@code at} 20) answer; null if the log is not created yet,
     * or the server is of a version that sends none.
     */
    public UUID logIdAt(int at) {
        if (bodyLength() < at + 16) {
            return null;
        }
        long msb = longAt(at);
        long lsb = longAt(at + 8);
        return msb == 0 && lsb == 0 ? null : new UUID(msb, lsb);
    }

    public static LogFrame trimmedTo(ByteBufAllocator alloc, long requestId, long trimPoint) {
        return new LogFrame(TRIMMED_TO, requestId, alloc.buffer(8).writeLong(trimPoint));
    }

    /** The header of a PUSH; the caller writes the block after it. */
    public static ByteBuf pushBody(ByteBufAllocator alloc, long position, int blockSize) {
        return alloc.ioBuffer(8 + blockSize).writeLong(position);
    }

    public static LogFrame unsubscribed(long requestId) {
        return new LogFrame(UNSUBSCRIBED, requestId, Unpooled.EMPTY_BUFFER);
    }

    public static LogFrame error(ByteBufAllocator alloc, long requestId, ErrorCode code, String message) {
        return new LogFrame(ERROR, requestId, errorBody(alloc, code.code(), message, MAX_ERROR_MESSAGE));
    }
}
