package io.meldb.sql.pg;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.ObjectPool;

import java.nio.charset.StandardCharsets;

/**
 * One frontend message: its type byte ({@link #STARTUP} for the untyped messages that open a connection, whose
 * body starts with the protocol code) and its body, a retained slice of the connection's input that the
 * receiver releases. Messages are pooled (one per frame would be the front end's largest allocation): after
 * {@link #release()} the object belongs to the pool and must not be touched.
 */
public final class PgMessage {
    /** The type of StartupMessage, SSLRequest, GSSENCRequest and CancelRequest, which have no type byte. */
    public static final byte STARTUP = 0;
    private static final ObjectPool<PgMessage> POOL = ObjectPool.newPool(PgMessage::new);

    private final ObjectPool.Handle<PgMessage> handle;
    private byte type;
    private ByteBuf body;

    private PgMessage(final ObjectPool.Handle<PgMessage> handle) {
        this.handle = handle;
    }

    /** A message of {@code type} over {@code body}, which it now owns. */
    public static PgMessage of(final byte type, final ByteBuf body) {
        final PgMessage m = POOL.get();
        m.type = type;
        m.body = body;
        return m;
    }

    public byte type() {
        return type;
    }

    public ByteBuf body() {
        return body;
    }

    /** Releases the body and returns the message to the pool; a second call does nothing. */
    public void release() {
        final ByteBuf b = body;
        if (b == null) {
            return;
        }
        body = null;
        if (b.refCnt() > 0) {
            b.release();
        }
        handle.recycle(this);
    }

    /** Reads a NUL-terminated UTF-8 string at the body's reader index. */
    public String readCString() {
        final int end = body.indexOf(body.readerIndex(), body.writerIndex(), (byte) 0);
        if (end < 0) {
            throw new PgProtocolException("a string in a '" + (char) type + "' message is not terminated");
        }
        final String s = body.toString(body.readerIndex(), end - body.readerIndex(), StandardCharsets.UTF_8);
        body.readerIndex(end + 1);
        return s;
    }

    /** Whether the NUL-terminated string at the reader index is empty; moves past it when it is. */
    public boolean readEmptyCString() {
        if (body.isReadable() && body.getByte(body.readerIndex()) == 0) {
            body.skipBytes(1);
            return true;
        }
        return false;
    }

    /** Whether the next byte is the NUL of an empty string (not moving). */
    public boolean peekEmptyCString() {
        return body.isReadable() && body.getByte(body.readerIndex()) == 0;
    }

    /**
     * Whether the NUL-terminated string at the reader index is {@code s} (compared byte by byte, which holds for
     * ASCII; any other {@code s} answers false); moves past it when it is.
     */
    public boolean readCStringIf(final String s) {
        final int at = body.readerIndex();
        final int n = s.length();
        if (body.readableBytes() < n + 1 || body.getByte(at + n) != 0) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            final char c = s.charAt(i);
            if (c >= 0x80 || body.getByte(at + i) != c) {
                return false;
            }
        }
        body.readerIndex(at + n + 1);
        return true;
    }

    /** Moves past {@code n} bytes (checked like the other reads). */
    public void skip(final int n) {
        need(n);
        body.skipBytes(n);
    }

    /** The NUL-terminated string at the reader index, without moving it (null when not terminated). */
    public String peekCString() {
        final int end = body.indexOf(body.readerIndex(), body.writerIndex(), (byte) 0);
        return end < 0 ? null : body.toString(body.readerIndex(), end - body.readerIndex(), StandardCharsets.UTF_8);
    }

    /** The second NUL-terminated string from the reader index (a Parse message's SQL), without moving; null if none. */
    public String peekSecondCString() {
        final int first = body.indexOf(body.readerIndex(), body.writerIndex(), (byte) 0);
        if (first < 0) {
            return null;
        }
        final int end = body.indexOf(first + 1, body.writerIndex(), (byte) 0);
        return end < 0 ? null : body.toString(first + 1, end - first - 1, StandardCharsets.UTF_8);
    }

    public int readInt() {
        need(4);
        return body.readInt();
    }

    public short readShort() {
        need(2);
        return body.readShort();
    }

    public byte readByte() {
        need(1);
        return body.readByte();
    }

    /** A slice of the next {@code n} bytes (not retained: valid while this message is). */
    public ByteBuf readSlice(final int n) {
        need(n);
        return body.readSlice(n);
    }

    private void need(final int n) {
        if (n < 0 || body.readableBytes() < n) {
            throw new PgProtocolException("a '" + (char) type + "' message is shorter than its fields");
        }
    }
}
