package io.meldb.sql.codec;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Compact encoding of a row's non-key columns (the payload of a row entry). Not order-preserving; each column
 * is a presence byte (0 = NULL, 1 = value) and the value in a fixed or length-prefixed form.
 */
public final class RowCodec {
    /** Each thread's scratch space for the payloads it encodes; the payload itself is a new exact array. */
    private static final ThreadLocal<ByteWriter> SCRATCH = ThreadLocal.withInitial(() -> new ByteWriter(128));

    private RowCodec() {
    }

    /** Encodes {@code row[i]} for every i in {@code columns}, in that order. */
    /**
     * Bytes a present value of {@code type} takes in a payload after its presence byte (and in a key after its tag),
     * or 0 if its width varies (DECIMAL, text, bytes, ...).
     */
    public static int fixedWidth(final ColumnType type) {
        return switch (type.type()) {
            case BOOLEAN -> 1;
            case SMALLINT -> 2;
            case INTEGER, DATE, TIME, REAL -> 4;
            case BIGINT, TIMESTAMP, TIMESTAMPTZ, DOUBLE -> 8;
            case UUID -> 16;
            default -> 0;
        };
    }

    public static byte[] encode(final Object[] row, final List<ColumnType> types, final int[] columns) {
        final ByteWriter out = SCRATCH.get().reset();
        for (int c : columns) {
            final Object v = row[c];
            if (v == null) {
                out.write(0);
                continue;
            }
            out.write(1);
            switch (types.get(c).type()) {
                case SMALLINT -> out.writeShort((Short) v);
                case INTEGER, DATE, TIME -> out.writeInt((Integer) v);
                case BIGINT, TIMESTAMP, TIMESTAMPTZ -> out.writeLong((Long) v);
                case REAL -> out.writeInt(Float.floatToRawIntBits((Float) v));
                case BYTEA -> {
                    final org.apache.calcite.avatica.util.ByteString b = (org.apache.calcite.avatica.util.ByteString) v;
                    out.writeVarInt(b.length()).write(b.getBytes());
                }
                case UUID -> {
                    final java.util.UUID u = java.util.UUID.fromString((String) v);
                    out.writeLong(u.getMostSignificantBits()).writeLong(u.getLeastSignificantBits());
                }
                case DOUBLE -> out.writeLong(Double.doubleToRawLongBits((Double) v));
                case BOOLEAN -> out.write(((Boolean) v) ? 1 : 0);
                case CHAR, VARCHAR, TEXT, JSON -> {
                    final byte[] utf8 = ((String) v).getBytes(StandardCharsets.UTF_8);
                    out.writeVarInt(utf8.length).write(utf8);
                }
                case DECIMAL -> {
                    final BigDecimal d = (BigDecimal) v;
                    final byte[] unscaled = d.unscaledValue().toByteArray();
                    out.writeVarInt(d.scale() + 1024).writeVarInt(unscaled.length).write(unscaled);
                }
            }
        }
        return out.toByteArray();
    }

    /**
     * Decodes a payload written by {@link #encode} into {@code row[i]} for every i in {@code columns}, stopping at
     * the payload's end: a row written before ALTER TABLE ... ADD COLUMN holds fewer columns than {@code columns}
     * names. Answers how many columns it decoded; the slots of the others are left as they were.
     */
    public static int decode(final byte[] payload, final List<ColumnType> types, final int[] columns,
                             final Object[] row) {
        final ByteReader in = new ByteReader(payload, 0);
        int decoded = 0;
        for (int c : columns) {
            if (in.position() >= payload.length) {
                return decoded;
            }
            decoded++;
            if (in.read() == 0) {
                row[c] = null;
                continue;
            }
            row[c] = switch (types.get(c).type()) {
                case SMALLINT -> (short) in.readShort();
                case INTEGER, DATE, TIME -> in.readInt();
                case BIGINT, TIMESTAMP, TIMESTAMPTZ -> in.readLong();
                case REAL -> Float.intBitsToFloat(in.readInt());
                case BYTEA -> new org.apache.calcite.avatica.util.ByteString(in.readBytes(in.readVarInt()));
                case UUID -> new java.util.UUID(in.readLong(), in.readLong()).toString();
                case DOUBLE -> Double.longBitsToDouble(in.readLong());
                case BOOLEAN -> in.read() != 0;
                case CHAR, VARCHAR, TEXT, JSON -> new String(in.readBytes(in.readVarInt()), StandardCharsets.UTF_8);
                case DECIMAL -> {
                    final int scale = in.readVarInt() - 1024;
                    yield new BigDecimal(new BigInteger(in.readBytes(in.readVarInt())), scale);
                }
            };
        }
        return decoded;
    }
}
