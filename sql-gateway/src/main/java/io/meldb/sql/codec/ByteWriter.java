package io.meldb.sql.codec;

import java.util.Arrays;

/** A growable byte array that keys and row payloads are written into. */
public final class ByteWriter {
    private byte[] bytes;
    private int length;

    public ByteWriter() {
        this(32);
    }

    public ByteWriter(final int capacity) {
        bytes = new byte[Math.max(capacity, 8)];
    }

    public ByteWriter write(final int b) {
        ensure(1);
        bytes[length++] = (byte) b;
        return this;
    }

    public ByteWriter write(final byte[] b) {
        return write(b, 0, b.length);
    }

    public ByteWriter write(final byte[] b, final int offset, final int len) {
        ensure(len);
        System.arraycopy(b, offset, bytes, length, len);
        length += len;
        return this;
    }

    public ByteWriter writeShort(final int v) {
        return write(v >>> 8).write(v);
    }

    public ByteWriter writeInt(final int v) {
        ensure(4);
        bytes[length++] = (byte) (v >>> 24);
        bytes[length++] = (byte) (v >>> 16);
        bytes[length++] = (byte) (v >>> 8);
        bytes[length++] = (byte) v;
        return this;
    }

    public ByteWriter writeLong(final long v) {
        writeInt((int) (v >>> 32));
        return writeInt((int) v);
    }

    /** Unsigned LEB128. */
    public ByteWriter writeVarInt(final int v) {
        int rest = v;
        while ((rest & ~0x7F) != 0) {
            write((rest & 0x7F) | 0x80);
            rest >>>= 7;
        }
        return write(rest);
    }

    /** Empties the writer, keeping its array (for a writer reused as scratch space). */
    public ByteWriter reset() {
        length = 0;
        return this;
    }

    public int length() {
        return length;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(bytes, length);
    }

    /**
     * The bytes written, in {@code reuse} when it has exactly their length (no allocation: a statement that encodes
     * keys of one length again and again keeps one array), else in a new exact array.
     */
    public byte[] toByteArray(final byte[] reuse) {
        if (reuse == null || reuse.length != length) {
            return toByteArray();
        }
        System.arraycopy(bytes, 0, reuse, 0, length);
        return reuse;
    }

    private void ensure(final int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
        }
    }
}
