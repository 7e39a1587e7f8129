package io.meldb.sql.pg;

import io.meldb.sql.ErrorFields;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The ErrorResponse {@link PgBackend#error} writes: its fields, in the order PostgreSQL 15's elog.c sends them. */
class PgBackendErrorTest {
    /** The fields of the one message in {@code out}, each as its code and value ("n=t_pkey"). */
    private static List<String> fields(final ByteBuf out) {
        assertEquals('E', out.readByte());
        final int length = out.readInt();
        assertEquals(length - 4, out.readableBytes(), "the length counts itself and the body");
        final List<String> fields = new ArrayList<>();
        for (byte code = out.readByte(); code != 0; code = out.readByte()) {
            final int end = out.indexOf(out.readerIndex(), out.writerIndex(), (byte) 0);
            fields.add((char) code + "=" + out.readCharSequence(end - out.readerIndex(), StandardCharsets.UTF_8));
            out.readByte();
        }
        assertEquals(0, out.readableBytes());
        return fields;
    }

    @Test
    void shouldWriteTheObjectFieldsAfterTheTextFieldsInPostgresqlsOrder() {
        final ByteBuf out = Unpooled.buffer();
        PgBackend.error(out, 'E', "ERROR", "23505", "duplicate key value violates unique constraint \"t_pkey\"",
                "Key (a)=(1) already exists.", null, new ErrorFields("s2", "t", "a", "posint", "t_pkey"));
        assertEquals(List.of("S=ERROR", "V=ERROR", "C=23505",
                "M=duplicate key value violates unique constraint \"t_pkey\"", "D=Key (a)=(1) already exists.",
                "s=s2", "t=t", "c=a", "d=posint", "n=t_pkey"), fields(out));
    }

    @Test
    void shouldWriteOnlyTheObjectFieldsTheErrorNames() {
        final ByteBuf out = Unpooled.buffer();
        PgBackend.error(out, 'E', "ERROR", "23502", "null value in column \"b\" of relation \"t\" violates not-null "
                + "constraint", null, null, ErrorFields.column("public", "t", "b"));
        assertEquals(List.of("S=ERROR", "V=ERROR", "C=23502",
                "M=null value in column \"b\" of relation \"t\" violates not-null constraint", "s=public", "t=t",
                "c=b"), fields(out));
        final ByteBuf plain = Unpooled.buffer();
        PgBackend.error(plain, 'E', "ERROR", "22012", "division by zero", null, null);
        assertEquals(List.of("S=ERROR", "V=ERROR", "C=22012", "M=division by zero"), fields(plain));
    }
}
