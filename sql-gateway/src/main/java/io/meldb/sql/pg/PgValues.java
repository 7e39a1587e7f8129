package io.meldb.sql.pg;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;

/**
 * Result values on the PostgreSQL wire: a column written in text or binary format into a DataRow, in the formats
 * of PostgreSQL's {@code *out}/{@code *send} functions (DateStyle ISO, integer datetimes counted from 2000-01-01).
 * Parameters go the other way in {@link PgParameters}.
 */
public final class PgValues {
    /** Days from 1970-01-01 to PostgreSQL's epoch 2000-01-01. */
    static final long PG_EPOCH_DAYS = 10_957;
    static final long PG_EPOCH_MICROS = PG_EPOCH_DAYS * 86_400_000_000L;
    private PgValues() {
    }

    // ------------------------------------------------------------------------------------------ results

    /**
     * Writes a value of a result column (in {@link io.meldb.sql.server.RowCursor}'s forms) as a DataRow field:
     * its length, then its bytes (-1 and nothing for NULL).
     */
    public static void writeValue(final ByteBuf out, final PgType type, final Object v, final boolean binary) {
        writeValue(out, type, v, binary, java.time.ZoneOffset.UTC);
    }

    /**
     * Writes column {@code column} of the cursor's current row when it is an integer the cursor reads in place
     * ({@link io.meldb.sql.server.RowCursor#hasLong}) and the column travels as int2/int4/int8: no box. Answers
     * false, having written nothing, otherwise.
     */
    public static boolean writeLong(final ByteBuf out, final PgType type, final io.meldb.sql.server.RowCursor rows,
                                    final int column, final boolean binary) {
        if ((type != PgType.INT2 && type != PgType.INT4 && type != PgType.INT8) || !rows.hasLong(column)) {
            return false;
        }
        writeInteger(out, type, rows.longValue(column), binary);
        return true;
    }

    /**
     * Writes column {@code column} of the cursor's current row when it is text the cursor holds in place as UTF-8
     * ({@link io.meldb.sql.server.RowCursor#utf8Length}) and travels as text or varchar: its bytes are the field in
     * either format, copied without a String. Answers false, having written nothing, otherwise.
     */
    public static boolean writeUtf8(final ByteBuf out, final PgType type, final io.meldb.sql.server.RowCursor rows,
                                    final int column) {
        if (type != PgType.VARCHAR && type != PgType.TEXT) {
            return false;
        }
        final int length = rows.utf8Length(column);
        if (length < 0) {
            return false;
        }
        out.writeInt(length).writeBytes(rows.utf8Array(), rows.utf8Offset(column), length);
        return true;
    }

    private static void writeInteger(final ByteBuf out, final PgType type, final long l, final boolean binary) {
        if (!binary) {
            writeDecimalDigits(out, l);
        } else if (type == PgType.INT2) {
            out.writeInt(2).writeShort((int) l);
        } else if (type == PgType.INT4) {
            out.writeInt(4).writeInt((int) l);
        } else {
            out.writeInt(8).writeLong(l);
        }
    }

    /** As above; a TIMESTAMP WITH TIME ZONE is shown in {@code zone}, the session's TimeZone. */
    public static void writeValue(final ByteBuf out, final PgType type, final Object v, final boolean binary,
                                  final java.time.ZoneId zone) {
        if (v == null) {
            out.writeInt(-1);
            return;
        }
        if (type.element() != null) {
            PgArrays.write(out, type, v, binary, zone);
            return;
        }
        switch (type) {
            case BOOL -> {
                final boolean b = (Boolean) v;
                out.writeInt(1).writeByte(binary ? (b ? 1 : 0) : (b ? 't' : 'f'));
            }
            case INT2, INT4, INT8 -> writeInteger(out, type, ((Number) v).longValue(), binary);
            case FLOAT4, FLOAT8 -> {
                final double d = ((Number) v).doubleValue();
                if (!binary) {
                    writeText(out, type == PgType.FLOAT4 ? floatText((float) d) : doubleText(d));
                } else if (type == PgType.FLOAT4) {
                    out.writeInt(4).writeFloat((float) d);
                } else {
                    out.writeInt(8).writeDouble(d);
                }
            }
            case NUMERIC -> {
                final BigDecimal d = v instanceof BigDecimal b ? b : new BigDecimal(v.toString());
                if (binary) {
                    writeNumericBinary(out, d);
                } else {
                    writeText(out, d.toPlainString());
                }
            }
            case DATE -> {
                final LocalDate d = (LocalDate) v;
                if (binary) {
                    out.writeInt(4).writeInt((int) (d.toEpochDay() - PG_EPOCH_DAYS));
                } else {
                    writeText(out, d.toString());
                }
            }
            case TIME -> {
                final LocalTime t = (LocalTime) v;
                if (binary) {
                    out.writeInt(8).writeLong(t.toNanoOfDay() / 1000);
                } else {
                    writeText(out, timeText(t));
                }
            }
            case TIMESTAMP -> {
                final LocalDateTime t = (LocalDateTime) v;
                if (binary) {
                    out.writeInt(8).writeLong(timestampMicros(t));
                } else {
                    writeText(out, timestampText(t));
                }
            }
            case TIMESTAMPTZ -> {
                // the instant travels as UTC micros in binary; text is the wall clock of the session's zone
                final java.time.Instant instant = v instanceof java.time.OffsetDateTime o ? o.toInstant()
                        : ((LocalDateTime) v).toInstant(java.time.ZoneOffset.UTC);
                if (binary) {
                    out.writeInt(8).writeLong(timestampMicros(LocalDateTime.ofInstant(instant,
                            java.time.ZoneOffset.UTC)));
                } else {
                    final java.time.OffsetDateTime local = instant.atZone(zone).toOffsetDateTime();
                    writeText(out, timestampText(local.toLocalDateTime()) + offsetText(local.getOffset()));
                }
            }
            case UUID -> {
                final java.util.UUID u = v instanceof java.util.UUID x ? x : java.util.UUID.fromString(v.toString());
                if (binary) {
                    out.writeInt(16).writeLong(u.getMostSignificantBits()).writeLong(u.getLeastSignificantBits());
                } else {
                    writeText(out, u.toString());
                }
            }
            case JSONB -> {
                final String s = v.toString();
                if (binary) {
                    // jsonb_send: a version byte, then the text
                    checkFieldLength(out, s);
                    final int at = out.writerIndex();
                    out.writeInt(0).writeByte(1);
                    out.setInt(at, 1 + ByteBufUtil.writeUtf8(out, s));
                } else {
                    writeText(out, s);
                }
            }
            case BYTEA -> {
                final byte[] b = v instanceof org.apache.calcite.avatica.util.ByteString s ? s.getBytes() : (byte[]) v;
                if (binary) {
                    out.writeInt(b.length).writeBytes(b);
                } else {
                    writeText(out, "\\x" + ByteBufUtil.hexDump(b));
                }
            }
            default -> {
                final String s = v instanceof String str ? str : String.valueOf(v);
                if (binary) {
                    checkFieldLength(out, s);
                    final int at = out.writerIndex();
                    out.writeInt(0);
                    out.setInt(at, ByteBufUtil.writeUtf8(out, s));
                } else {
                    writeText(out, s);
                }
            }
        }
    }

    /** A text-format field: its UTF-8 length, then the bytes. */
    public static void writeText(final ByteBuf out, final CharSequence s) {
        checkFieldLength(out, s);
        final int at = out.writerIndex();
        out.writeInt(0);
        final int n = ByteBufUtil.writeUtf8(out, s);
        out.setInt(at, n);
    }

    /**
     * A field's text must fit in one message buffer: its UTF-8 form is written into space reserved for the worst
     * case (three bytes a character), and a buffer holds at most 2 GB; a longer value is refused with PostgreSQL's
     * program_limit_exceeded (54000) before anything is written, not with an overflowing index.
     */
    private static void checkFieldLength(final ByteBuf out, final CharSequence s) {
        if ((long) s.length() * 3 + out.writerIndex() + Integer.BYTES > Integer.MAX_VALUE) {
            throw new io.meldb.sql.SqlStateException("54000", "requested length too large: a value of "
                    + s.length() + " characters is more than MeldDB sends in one field");
        }
    }

    /** A text-format integer field without making a String. */
    private static void writeDecimalDigits(final ByteBuf out, final long v) {
        if (v == Long.MIN_VALUE) {
            writeText(out, "-9223372036854775808");
            return;
        }
        final int at = out.writerIndex();
        out.writeInt(0);
        long x = v;
        if (x < 0) {
            out.writeByte('-');
            x = -x;
        }
        long scale = 1;
        while (x / scale >= 10) {
            scale *= 10;
        }
        while (scale > 0) {
            out.writeByte((int) ('0' + (x / scale) % 10));
            scale /= 10;
        }
        out.setInt(at, out.writerIndex() - at - 4);
    }

    /** float8out with extra_float_digits > 0: the shortest text that reads back as the same double. */
    static String doubleText(final double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "Infinity" : "-Infinity";
        }
        return javaToPgFloat(Double.toString(v));
    }

    static String floatText(final float v) {
        if (Float.isNaN(v)) {
            return "NaN";
        }
        if (Float.isInfinite(v)) {
            return v > 0 ? "Infinity" : "-Infinity";
        }
        return javaToPgFloat(Float.toString(v));
    }

    /** Java's "1.0E10" and "2.0" read as PostgreSQL writes them: "1e+10" and "2". */
    private static String javaToPgFloat(final String java) {
        final int e = java.indexOf('E');
        String mantissa = e < 0 ? java : java.substring(0, e);
        if (mantissa.endsWith(".0")) {
            mantissa = mantissa.substring(0, mantissa.length() - 2);
        }
        if (e < 0) {
            return mantissa;
        }
        final int exponent = Integer.parseInt(java.substring(e + 1));
        final String digits = String.valueOf(Math.abs(exponent));
        return mantissa + "e" + (exponent < 0 ? "-" : "+") + (digits.length() < 2 ? "0" : "") + digits;
    }

    static String timestampText(final LocalDateTime t) {
        return t.toLocalDate() + " " + timeText(t.toLocalTime());
    }

    /** timestamptz_out's offset: {@code +00}, {@code -05}, {@code +05:30}. */
    static String offsetText(final java.time.ZoneOffset offset) {
        final int seconds = offset.getTotalSeconds();
        final int abs = Math.abs(seconds);
        final StringBuilder b = new StringBuilder(9).append(seconds < 0 ? '-' : '+');
        two(b, abs / 3600);
        if (abs % 3600 != 0) {
            two(b.append(':'), abs % 3600 / 60);
            if (abs % 60 != 0) {
                two(b.append(':'), abs % 60);
            }
        }
        return b.toString();
    }

    static String timeText(final LocalTime t) {
        final StringBuilder b = new StringBuilder(15);
        two(b, t.getHour()).append(':');
        two(b, t.getMinute()).append(':');
        two(b, t.getSecond());
        final int micros = t.getNano() / 1000;
        if (micros != 0) {
            String f = String.valueOf(1_000_000 + micros).substring(1);
            int end = f.length();
            while (f.charAt(end - 1) == '0') {
                end--;
            }
            b.append('.').append(f, 0, end);
        }
        return b.toString();
    }

    private static StringBuilder two(final StringBuilder b, final int v) {
        return b.append((char) ('0' + v / 10)).append((char) ('0' + v % 10));
    }

    private static long timestampMicros(final LocalDateTime t) {
        return t.toLocalDate().toEpochDay() * 86_400_000_000L + t.toLocalTime().toNanoOfDay() / 1000
                - PG_EPOCH_MICROS;
    }

    /** numeric_send: base-10000 digits with a weight, a sign and the display scale. */
    static void writeNumericBinary(final ByteBuf out, final BigDecimal value) {
        BigDecimal a = value.abs();
        if (a.scale() < 0) {
            a = a.setScale(0);
        }
        final int dscale = a.scale();
        // integer digits padded left, fraction digits padded right, both to whole base-10000 groups
        final BigInteger unscaled = a.unscaledValue();
        final String digits = unscaled.toString();
        final int intDigits = Math.max(digits.length() - dscale, 0);
        final String intPart = intDigits == 0 ? "" : digits.substring(0, intDigits);
        final String fracPart = "0".repeat(Math.max(dscale - digits.length(), 0))
                + digits.substring(intDigits);
        final String paddedInt = "0".repeat((4 - intPart.length() % 4) % 4) + intPart;
        final String paddedFrac = fracPart + "0".repeat((4 - fracPart.length() % 4) % 4);
        final String all = paddedInt + paddedFrac;
        final int groups = all.length() / 4;
        int first = 0;
        int last = groups;
        while (first < last && all.regionMatches(first * 4, "0000", 0, 4)) {
            first++;
        }
        while (last > first && all.regionMatches((last - 1) * 4, "0000", 0, 4)) {
            last--;
        }
        final int ndigits = last - first;
        final int weight = ndigits == 0 ? 0 : paddedInt.length() / 4 - 1 - first;
        out.writeInt(8 + 2 * ndigits);
        out.writeShort(ndigits).writeShort(weight).writeShort(value.signum() < 0 ? 0x4000 : 0).writeShort(dscale);
        for (int g = first; g < last; g++) {
            out.writeShort(Integer.parseInt(all, g * 4, g * 4 + 4, 10));
        }
    }
}
