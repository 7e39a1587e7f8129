package io.meldb.sql.codec;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Order-preserving encoding of typed values into key bytes: for two values a, b of one type, the unsigned
 * byte-wise order of their encodings is the SQL order of the values, and no encoding is a prefix of another
 * (so a tuple's encoding is the concatenation of its values' encodings, and tuples compare column by column).
 *
 * <pre>
 * every value: tag byte, 0x01 = a value follows, 0x02 = NULL (nulls sort last, as in Calcite and PostgreSQL)
 *   SMALLINT / INTEGER / DATE / TIME / BIGINT / TIMESTAMP / TIMESTAMPTZ
 *              2 / 4 / 4 / 4 / 8 / 8 / 8 bytes big-endian, sign bit flipped
 *   DOUBLE     8 bytes: IEEE bits, all flipped when negative, else sign bit flipped (-0.0 is 0.0, one NaN, last)
 *   REAL       the same in 4 bytes
 *   BYTEA      the bytes, 0x00 escaped as 0x00 0xFF, ended by 0x00 0x00 (as strings)
 *   UUID       16 bytes big-endian (PostgreSQL's uuid order: unsigned, byte by byte)
 *   BOOLEAN    0x00 false, 0x01 true
 *   CHAR / VARCHAR / TEXT   UTF-8 (code point order), 0x00 escaped as 0x00 0xFF, ended by 0x00 0x00
 *   DECIMAL    0x01 negative | 0x02 zero | 0x03 positive; then for v = ±0.d1..dn × 10^e:
 *              positive: e (4 bytes, sign flipped), digits as d+1, ended by 0x00
 *              negative: e (4 bytes, sign flipped, all bits inverted), digits as 11-d, ended by 0xFF
 * </pre>
 */
public final class KeyCodec {
    public static final int TAG_VALUE = 0x01;
    public static final int TAG_NULL = 0x02;

    private KeyCodec() {
    }

    /** Appends the encoding of {@code value} (in-flight form of {@code type}, or null). */
    public static void encode(final ByteWriter out, final SqlType type, final Object value) {
        if (value == null) {
            out.write(TAG_NULL);
            return;
        }
        out.write(TAG_VALUE);
        switch (type) {
            case SMALLINT -> out.writeShort(((Number) value).shortValue() ^ 0x8000);
            case INTEGER, DATE, TIME -> out.writeInt(((Number) value).intValue() ^ Integer.MIN_VALUE);
            case BIGINT, TIMESTAMP, TIMESTAMPTZ -> out.writeLong(((Number) value).longValue() ^ Long.MIN_VALUE);
            case DOUBLE -> out.writeLong(doubleBits(((Number) value).doubleValue()));
            case REAL -> out.writeInt(floatBits(((Number) value).floatValue()));
            case BOOLEAN -> out.write(((Boolean) value) ? 1 : 0);
            case CHAR, VARCHAR, TEXT -> encodeString(out, (String) value);
            case BYTEA -> encodeBytes(out, ((org.apache.calcite.avatica.util.ByteString) value).getBytes());
            case UUID -> {
                final java.util.UUID u = java.util.UUID.fromString((String) value);
                out.writeLong(u.getMostSignificantBits()).writeLong(u.getLeastSignificantBits());
            }
            case DECIMAL -> encodeDecimal(out, (BigDecimal) value);
            case JSON -> throw notAKey(type);
        }
    }

    /**
     * Appends the encoding of an integer value of a SMALLINT, INTEGER or BIGINT column (already in its range), as
     * {@link #encode} writes it, without a box.
     */
    public static void encodeLong(final ByteWriter out, final SqlType type, final long value) {
        out.write(TAG_VALUE);
        switch (type) {
            case SMALLINT -> out.writeShort((int) value ^ 0x8000);
            case INTEGER -> out.writeInt((int) value ^ Integer.MIN_VALUE);
            case BIGINT -> out.writeLong(value ^ Long.MIN_VALUE);
            default -> throw new IllegalArgumentException("not an integer type: " + type);
        }
    }

    /** Reads one value encoded by {@link #encode}; DECIMAL comes back with {@code scale}. */
    public static Object decode(final ByteReader in, final SqlType type, final int scale) {
        final int tag = in.read();
        if (tag == TAG_NULL) {
            return null;
        }
        if (tag != TAG_VALUE) {
            throw new IllegalArgumentException("bad key tag " + tag);
        }
        return switch (type) {
            case SMALLINT -> (short) (in.readShort() ^ 0x8000);
            case INTEGER, DATE, TIME -> in.readInt() ^ Integer.MIN_VALUE;
            case BIGINT, TIMESTAMP, TIMESTAMPTZ -> in.readLong() ^ Long.MIN_VALUE;
            case DOUBLE -> bitsToDouble(in.readLong());
            case REAL -> bitsToFloat(in.readInt());
            case BOOLEAN -> in.read() != 0;
            case CHAR, VARCHAR, TEXT -> decodeString(in);
            case BYTEA -> new org.apache.calcite.avatica.util.ByteString(decodeBytes(in));
            case UUID -> new java.util.UUID(in.readLong(), in.readLong()).toString();
            case JSON -> throw notAKey(type);
            case DECIMAL -> decodeDecimal(in).setScale(scale);
        };
    }

    /** Skips one encoded value. */
    public static void skip(final ByteReader in, final SqlType type) {
        decode(in, type, 0 /* a decimal's scale does not matter when skipping */);
    }

    /**
     * The smallest byte string greater than every string that starts with {@code prefix}, or null when there is
     * none (all bytes 0xFF).
     */
    public static byte[] prefixEnd(final byte[] prefix) {
        int end = prefix.length;
        while (end > 0 && (prefix[end - 1] & 0xFF) == 0xFF) {
            end--;
        }
        if (end == 0) {
            return null;
        }
        final byte[] out = Arrays.copyOf(prefix, end);
        out[end - 1]++;
        return out;
    }

    /** Unsigned lexicographic comparison, the order of the tree. */
    public static int compare(final byte[] a, final byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    private static long doubleBits(final double v) {
        final double canonical = v == 0.0 ? 0.0 : v; // -0.0 == 0.0 in SQL
        final long bits = Double.doubleToLongBits(canonical); // one NaN
        return bits < 0 ? ~bits : bits ^ Long.MIN_VALUE;
    }

    private static double bitsToDouble(final long encoded) {
        final long bits = encoded < 0 ? encoded ^ Long.MIN_VALUE : ~encoded;
        return Double.longBitsToDouble(bits);
    }

    /** Whether a column of {@code type} can be in a key (a primary key, a unique constraint, an index). */
    public static boolean isKeyType(final SqlType type) {
        return type != SqlType.JSON;
    }

    /** PostgreSQL's answer for a json column in an index: it has no ordering. */
    public static ValueException notAKey(final SqlType type) {
        return new ValueException("42704", "data type " + type.name().toLowerCase(java.util.Locale.ROOT)
                + " has no default operator class for access method \"btree\" (it cannot be in a key or an index)");
    }

    private static int floatBits(final float v) {
        final float canonical = v == 0.0f ? 0.0f : v;
        final int bits = Float.floatToIntBits(canonical);
        return bits < 0 ? ~bits : bits ^ Integer.MIN_VALUE;
    }

    private static float bitsToFloat(final int encoded) {
        final int bits = encoded < 0 ? encoded ^ Integer.MIN_VALUE : ~encoded;
        return Float.intBitsToFloat(bits);
    }

    private static void encodeString(final ByteWriter out, final String s) {
        encodeBytes(out, s.getBytes(StandardCharsets.UTF_8));
    }

    private static void encodeBytes(final ByteWriter out, final byte[] utf8) {
        for (byte b : utf8) {
            out.write(b);
            if (b == 0) {
                out.write(0xFF);
            }
        }
        out.write(0).write(0);
    }

    private static String decodeString(final ByteReader in) {
        return new String(decodeBytes(in), StandardCharsets.UTF_8);
    }

    private static byte[] decodeBytes(final ByteReader in) {
        final ByteArrayOutputStream buf = new ByteArrayOutputStream();
        while (true) {
            final int b = in.read();
            if (b == 0) {
                final int next = in.read();
                if (next == 0) {
                    break;
                }
                if (next != 0xFF) {
                    throw new IllegalArgumentException("bad string escape " + next);
                }
            }
            buf.write(b);
        }
        return buf.toByteArray();
    }

    private static void encodeDecimal(final ByteWriter out, final BigDecimal value) {
        final int sign = value.signum();
        if (sign == 0) {
            out.write(0x02);
            return;
        }
        final BigDecimal stripped = value.stripTrailingZeros();
        final String digits = stripped.unscaledValue().abs().toString();
        final int exponent = digits.length() - stripped.scale();
        if (sign > 0) {
            out.write(0x03);
            out.writeInt(exponent ^ Integer.MIN_VALUE);
            for (int i = 0; i < digits.length(); i++) {
                out.write(digits.charAt(i) - '0' + 1);
            }
            out.write(0x00);
        } else {
            out.write(0x01);
            out.writeInt(~(exponent ^ Integer.MIN_VALUE));
            for (int i = 0; i < digits.length(); i++) {
                out.write(11 - (digits.charAt(i) - '0'));
            }
            out.write(0xFF);
        }
    }

    private static BigDecimal decodeDecimal(final ByteReader in) {
        final int sign = in.read();
        if (sign == 0x02) {
            return BigDecimal.ZERO;
        }
        final boolean positive = sign == 0x03;
        final int rawExponent = in.readInt();
        final int exponent = positive ? rawExponent ^ Integer.MIN_VALUE : ~rawExponent ^ Integer.MIN_VALUE;
        final StringBuilder digits = new StringBuilder();
        while (true) {
            final int b = in.read();
            if (positive ? b == 0x00 : b == 0xFF) {
                break;
            }
            digits.append((char) ('0' + (positive ? b - 1 : 11 - b)));
        }
        final BigInteger unscaled = new BigInteger(digits.toString());
        final BigDecimal magnitude = new BigDecimal(unscaled, digits.length() - exponent);
        return positive ? magnitude : magnitude.negate();
    }
}
