package io.meldb.sql.pg;

import io.meldb.sql.fast.ParameterValues;
import io.netty.buffer.ByteBuf;

import java.sql.Types;

/**
 * The common case of a Bind parameter read without a box (issue 16): an integer, in binary (int2/int4/int8) or in
 * plain decimal text, for a SMALLINT, INTEGER or BIGINT parameter of a fast-path statement, goes into the portal's
 * {@link ParameterValues} as a primitive long. Anything else, including every value that is malformed or out of
 * range, is left to {@link PgParameters#readParameter}, which reads it (or answers its error, 22P02/22P03/22003)
 * exactly as before, so both ways give the same values and the same errors.
 */
final class PgIntegerParameters {
    /** Decimal digits a long holds whatever they are (19 may overflow). */
    private static final int SAFE_DIGITS = 18;

    private PgIntegerParameters() {
    }

    /** Whether {@code jdbcType} is one this class reads. */
    static boolean integral(final int jdbcType) {
        return jdbcType == Types.SMALLINT || jdbcType == Types.INTEGER || jdbcType == Types.BIGINT;
    }

    /**
     * Reads the value into slot {@code slot} of {@code values} and answers true, or answers false having read
     * nothing (the caller then takes the general path). {@code bytes} is not null.
     */
    static boolean read(final ByteBuf bytes, final boolean binary, final PgType declared, final int jdbcType,
                        final ParameterValues values, final int slot) {
        final long v;
        if (binary) {
            final int n = bytes.readableBytes();
            final PgType type = declared != null ? declared
                    : n == 8 && jdbcType == Types.INTEGER ? PgType.INT8 : PgType.ofJdbc(jdbcType);
            final int at = bytes.readerIndex();
            if (type == PgType.INT2 && n == 2) {
                v = bytes.getShort(at);
            } else if (type == PgType.INT4 && n == 4) {
                v = bytes.getInt(at);
            } else if (type == PgType.INT8 && n == 8) {
                v = bytes.getLong(at);
            } else {
                return false;
            }
        } else {
            if (declared != null && declared != PgType.INT2 && declared != PgType.INT4 && declared != PgType.INT8
                    && declared != PgType.UNKNOWN) {
                return false;
            }
            final int from = bytes.readerIndex();
            final int to = bytes.writerIndex();
            int i = from;
            final boolean negative = i < to && bytes.getByte(i) == '-';
            if (i < to && (bytes.getByte(i) == '-' || bytes.getByte(i) == '+')) {
                i++;
            }
            if (i == to || to - i > SAFE_DIGITS) {
                return false;
            }
            long d = 0;
            for (; i < to; i++) {
                final int c = bytes.getByte(i) - '0';
                if (c < 0 || c > 9) {
                    return false;
                }
                d = d * 10 + c;
            }
            v = negative ? -d : d;
        }
        final boolean fits = switch (jdbcType) {
            case Types.SMALLINT -> v >= Short.MIN_VALUE && v <= Short.MAX_VALUE;
            case Types.INTEGER -> v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE;
            default -> true;
        };
        if (!fits) {
            return false; // the general path answers 22003 in PostgreSQL's words
        }
        values.setLong(slot, v);
        return true;
    }
}
