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

    /**
     * Reads a NUL-terminated UTF-8 string at the body's reader index; bytes that are not UTF-8 are refused with 22021,
     * as PostgreSQL refuses every string a client sends in an encoding it does not hold (see {@link #checkUtf8}).
     */
    public String readCString() {
        final int end = body.indexOf(body.readerIndex(), body.writerIndex(), (byte) 0);
        if (end < 0) {
            throw new PgProtocolException("a string in a '" + (char) type + "' message is not terminated");
        }
        checkUtf8(body, body.readerIndex(), end);
        final String s = body.toString(body.readerIndex(), end - body.readerIndex(), StandardCharsets.UTF_8);
        body.readerIndex(end + 1);
        return s;
    }

    /**
     * Checks that the NUL-terminated string at the reader index is UTF-8 (22021 otherwise), without moving; a string
     * that is not terminated passes here (its reader says so).
     */
    public void checkCString() {
        final int end = body.indexOf(body.readerIndex(), body.writerIndex(), (byte) 0);
        if (end >= 0) {
            checkUtf8(body, body.readerIndex(), end);
        }
    }

    /**
     * Refuses bytes {@code [from, to)} of {@code b} unless they are well-formed UTF-8 (no overlong forms, no
     * surrogates, nothing above U+10FFFF), with PostgreSQL's error: 22021 character_not_in_repertoire, "invalid byte
     * sequence for encoding "UTF8": 0xc3 0x28", naming the bytes of the first bad sequence as PostgreSQL's
     * report_invalid_encoding does. Decoding would otherwise turn them silently into U+FFFD. Allocates nothing when
     * the bytes are good.
     */
    static void checkUtf8(final ByteBuf b, final int from, final int to) {
        int i = from;
        while (i < to) {
            final int c = b.getByte(i) & 0xFF;
            if (c < 0x80) {
                i++;
                continue;
            }
            final int length = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
            boolean good = length > 0 && i + length <= to;
            for (int k = 1; good && k < length; k++) {
                final int d = b.getByte(i + k) & 0xFF;
                if (k == 1) {
                    // the second byte's range narrows: E0 and F0 (overlong), ED (surrogates), F4 (> U+10FFFF)
                    final int lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
                    final int hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
                    good = d >= lo && d <= hi;
                } else {
                    good = d >= 0x80 && d <= 0xBF;
                }
            }
            if (!good) {
                throw invalidUtf8(b, i, to);
            }
            i += length;
        }
    }

    private static io.meldb.sql.SqlStateException invalidUtf8(final ByteBuf b, final int at, final int to) {
        // as many bytes as the lead byte announces (PostgreSQL's pg_utf_mblen), at most to the end of the string
        final int c = b.getByte(at) & 0xFF;
        final int announced = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
        final StringBuilder m = new StringBuilder("invalid byte sequence for encoding \"UTF8\":");
        for (int k = at; k < Math.min(at + announced, to); k++) {
            m.append(String.format(" 0x%02x", b.getByte(k) & 0xFF));
        }
        return new io.meldb.sql.SqlStateException("22021", m.toString());
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

    /** An Int16 read as unsigned (0 to 65,535): the counts of Parse and Bind, as PostgreSQL reads them. */
    public int readUnsignedShort() {
        need(2);
        return body.readUnsignedShort();
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
