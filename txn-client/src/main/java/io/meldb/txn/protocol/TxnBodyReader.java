package io.meldb.txn.protocol;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;

/**
 * Reads the fields of one {@link TxnFrame} body in order, checking every length against what is there: a body
 * that is short, has an impossible length or trailing bytes fails with {@link TxnError#BAD_REQUEST} naming the
 * frame and the field, so the server answers it and keeps the connection.
 */
public final class TxnBodyReader {
    private final TxnFrame frame;
    private final ByteBuf body;
    private int position;
    private final int end;

    TxnBodyReader(TxnFrame frame) {
        this.frame = frame;
        this.body = frame.body();
        this.position = body.readerIndex();
        this.end = body.writerIndex();
    }

    private void need(int n, String field) {
        if (end - position < n) {
            throw malformed("ends before its " + field);
        }
    }

    public long readLong(String field) {
        need(8, field);
        long v = body.getLong(position);
        position += 8;
        return v;
    }

    public int readInt(String field) {
        need(4, field);
        int v = body.getInt(position);
        position += 4;
        return v;
    }

    public byte readByte(String field) {
        need(1, field);
        byte v = body.getByte(position);
        position += 1;
        return v;
    }

    public boolean readBoolean(String field) {
        byte b = readByte(field);
        if (b != 0 && b != 1) {
            throw malformed("has " + b + " as " + field + " (0 or 1 expected)");
        }
        return b == 1;
    }

    public IsolationLevel readIsolation() {
        byte code = readByte("isolation");
        try {
            return IsolationLevel.fromCode(code);
        } catch (IllegalArgumentException e) {
            throw malformed("has unknown isolation code " + code);
        }
    }

    /** A {@code bytes} field: null for length -1. */
    public byte[] readBytes(String field) {
        int length = readInt(field + " length");
        if (length == -1) {
            return null;
        }
        if (length < -1 || length > end - position) {
            throw malformed("has a " + field + " length of " + length + " with " + (end - position) + " bytes left");
        }
        byte[] bytes = new byte[length];
        body.getBytes(position, bytes);
        position += length;
        return bytes;
    }

    public String readString(String field) {
        byte[] bytes = readBytes(field);
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    /** Whether unread bytes remain (for optional trailing fields). */
    public boolean hasMore() {
        return position < end;
    }

    /** Checks that the whole body was read. */
    public void end() {
        if (position != end) {
            throw malformed("has " + (end - position) + " unexpected bytes at its end");
        }
    }

    private TxnException malformed(String what) {
        return new TxnException(TxnError.BAD_REQUEST, TxnRpcProtocol.typeName(frame.type()) + " body of "
                + frame.bodyLength() + " bytes " + what);
    }
}
