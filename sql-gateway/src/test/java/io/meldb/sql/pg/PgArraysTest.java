package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Array values in PostgreSQL's text form (array_out) and binary form (array_send). */
class PgArraysTest {
    private static String text(final PgType type, final Object value) {
        final ByteBuf out = Unpooled.buffer();
        try {
            PgValues.writeValue(out, type, value, false, java.time.ZoneOffset.UTC);
            final int n = out.readInt();
            assertEquals(out.readableBytes(), n, "the field's length prefix");
            return out.toString(StandardCharsets.UTF_8);
        } finally {
            out.release();
        }
    }

    @Test
    void shouldWriteTheTextFormQuotingElementsAsArrayOutDoes() {
        assertEquals("{1,2}", text(PgType.INT4_ARRAY, List.of(1, 2)));
        assertEquals("{a,\"b c\",NULL,\"\",\"x\\\"y\",\"null\",\"a\\\\b\",\"{\",\",\"}",
                text(PgType.TEXT_ARRAY, Arrays.asList("a", "b c", null, "", "x\"y", "null", "a\\b", "{", ",")));
        assertEquals("{1.50,2}", text(PgType.NUMERIC_ARRAY, List.of(new BigDecimal("1.50"), new BigDecimal("2"))));
        assertEquals("{t,f}", text(PgType.BOOL_ARRAY, List.of(true, false)));
        assertEquals("{{1,2},{3,4}}", text(PgType.INT4_ARRAY, List.of(List.of(1, 2), List.of(3, 4))));
        assertEquals("{}", text(PgType.INT4_ARRAY, List.of()));
    }

    @Test
    void shouldWriteTheBinaryFormWithDimensionsNullFlagAndElementOid() {
        final ByteBuf out = Unpooled.buffer();
        try {
            PgValues.writeValue(out, PgType.INT8_ARRAY, Arrays.asList(7L, null), true, java.time.ZoneOffset.UTC);
            assertEquals(out.readableBytes() - 4, out.readInt());
            assertEquals(1, out.readInt(), "dimensions");
            assertEquals(1, out.readInt(), "has a NULL");
            assertEquals(20, out.readInt(), "element type int8");
            assertEquals(2, out.readInt(), "length");
            assertEquals(1, out.readInt(), "lower bound");
            assertEquals(8, out.readInt());
            assertEquals(7L, out.readLong());
            assertEquals(-1, out.readInt(), "NULL");
            assertEquals(0, out.readableBytes());
        } finally {
            out.release();
        }
    }

    @Test
    void shouldRefuseSubArraysOfDifferentLengthsAs2202E() {
        final SqlStateException e = assertThrows(SqlStateException.class,
                () -> text(PgType.INT4_ARRAY, List.of(List.of(1, 2), List.of(3))));
        assertEquals("2202E", e.sqlState());
    }
}
