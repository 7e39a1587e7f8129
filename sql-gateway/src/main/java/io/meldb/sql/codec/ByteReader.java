package io.meldb.sql.codec;

/** Reads what {@link ByteWriter} wrote, from a position in a byte array. */
public final class ByteReader {
    private final byte[] bytes;
    private int position;

    public ByteReader(final byte[] bytes, final int position) {
        this.bytes = bytes;
        this.position = position;
    }

    public int position() {
        return position;
    }

    public boolean hasMore() {
        return position < bytes.length;
    }

    public byte[] bytes() {
        return bytes;
    }

    public int read() {
        if (position >= bytes.length) {
            throw new IllegalArgumentException("truncated encoding at " + position);
        }
        return bytes[position++] & 0xFF;
    }

    public int peek() {
        if (position >= bytes.length) {
            throw new IllegalArgumentException("truncated encoding at " + position);
        }
        return bytes[position] & 0xFF;
    }

    public int readShort() {
        return (read() << 8) | read();
    }

    public int readInt() {
        return (read() << 24) | (read() << 16) | (read() << 8) | read();
    }

    public long readLong() {
        return ((long) readInt() << 32) | (readInt() & 0xFFFFFFFFL);
    }

    public int readVarInt() {
        int value = 0;
        int shift = 0;
        int b;
        do {
            b = read();
            value |= (b & 0x7F) << shift;
            shift += 7;
        } while ((b & 0x80) != 0);
        return value;
    }

    public byte[] readBytes(final int n) {
        if (position + n > bytes.length) {
            throw new IllegalArgumentException("truncated encoding at " + position);
        }
        final byte[] out = java.util.Arrays.copyOfRange(bytes, position, position + n);
        position += n;
        return out;
    }
}
