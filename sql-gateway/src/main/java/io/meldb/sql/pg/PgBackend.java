package io.meldb.sql.pg;

import io.meldb.sql.ErrorFields;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/**
 * Writes the backend messages of PostgreSQL's protocol v3 (PostgreSQL docs, "Message Formats") into a buffer:
 * one type byte, a length that counts itself, and the body. Stateless; every method appends one message.
 */
public final class PgBackend {
    /** Transaction status of ReadyForQuery: idle, in a transaction block, in a failed transaction block. */
    public static final byte IDLE = 'I';
    public static final byte IN_TRANSACTION = 'T';
    public static final byte FAILED = 'E';

    private PgBackend() {
    }

    /** Starts a message; answer the index to hand to {@link #end}. */
    public static int begin(final ByteBuf out, final char type) {
        out.writeByte(type);
        final int at = out.writerIndex();
        out.writeInt(0);
        return at;
    }

    /** Fills in the length of the message begun at {@code at}. */
    public static void end(final ByteBuf out, final int at) {
        out.setInt(at, out.writerIndex() - at);
    }

    public static void cstring(final ByteBuf out, final CharSequence s) {
        ByteBufUtil.writeUtf8(out, s);
        out.writeByte(0);
    }

    public static void authenticationOk(final ByteBuf out) {
        out.writeByte('R').writeInt(8).writeInt(0);
    }

    /** AuthenticationSASL offering SCRAM-SHA-256. */
    public static void authenticationSasl(final ByteBuf out) {
        final int at = begin(out, 'R');
        out.writeInt(10);
        cstring(out, "SCRAM-SHA-256");
        out.writeByte(0);
        end(out, at);
    }

    /** AuthenticationSASLContinue (11) or AuthenticationSASLFinal (12) with the mechanism's data. */
    public static void authenticationSaslData(final ByteBuf out, final int code, final byte[] data) {
        final int at = begin(out, 'R');
        out.writeInt(code);
        out.writeBytes(data);
        end(out, at);
    }

    public static void parameterStatus(final ByteBuf out, final String name, final String value) {
        final int at = begin(out, 'S');
        cstring(out, name);
        cstring(out, value);
        end(out, at);
    }

    public static void backendKeyData(final ByteBuf out, final int processId, final int secret) {
        out.writeByte('K').writeInt(12).writeInt(processId).writeInt(secret);
    }

    public static void readyForQuery(final ByteBuf out, final byte status) {
        out.writeByte('Z').writeInt(5).writeByte(status);
    }

    public static void parseComplete(final ByteBuf out) {
        out.writeByte('1').writeInt(4);
    }

    public static void bindComplete(final ByteBuf out) {
        out.writeByte('2').writeInt(4);
    }

    public static void closeComplete(final ByteBuf out) {
        out.writeByte('3').writeInt(4);
    }

    public static void noData(final ByteBuf out) {
        out.writeByte('n').writeInt(4);
    }

    public static void portalSuspended(final ByteBuf out) {
        out.writeByte('s').writeInt(4);
    }

    public static void emptyQueryResponse(final ByteBuf out) {
        out.writeByte('I').writeInt(4);
    }

    public static void commandComplete(final ByteBuf out, final CharSequence tag) {
        final int at = begin(out, 'C');
        cstring(out, tag);
        end(out, at);
    }

    /** CommandComplete with the tag {@code tag + " " + count} (e.g. {@code UPDATE 1}), written without a String. */
    public static void commandComplete(final ByteBuf out, final CharSequence tag, final long count) {
        final int at = begin(out, 'C');
        ByteBufUtil.writeUtf8(out, tag);
        out.writeByte(' ');
        writeDecimal(out, count);
        out.writeByte(0);
        end(out, at);
    }

    /** The decimal digits of a non-negative number. */
    private static void writeDecimal(final ByteBuf out, final long v) {
        long div = 1;
        while (v / div >= 10) {
            div *= 10;
        }
        for (; div > 0; div /= 10) {
            out.writeByte((int) ('0' + (v / div) % 10));
        }
    }

    public static void parameterDescription(final ByteBuf out, final int[] oids) {
        final int at = begin(out, 't');
        out.writeShort(oids.length);
        for (int oid : oids) {
            out.writeInt(oid);
        }
        end(out, at);
    }

    /** RowDescription; {@code formats} of length 0 means all text, 1 means that one format for every column. */
    public static void rowDescription(final ByteBuf out, final PgColumns columns, final short[] formats) {
        final int at = begin(out, 'T');
        out.writeShort(columns.size());
        for (int i = 0; i < columns.size(); i++) {
            cstring(out, columns.name(i));
            out.writeInt(0); // table OID: MeldDB's tables have none
            out.writeShort(0);
            final PgType type = columns.type(i);
            out.writeInt(type.oid());
            out.writeShort(type.length());
            out.writeInt(columns.typeModifier(i));
            out.writeShort(format(formats, i));
        }
        end(out, at);
    }

    /** The format code of column (or parameter) {@code i} under the format list of a Bind message. */
    public static short format(final short[] formats, final int i) {
        return formats.length == 0 ? 0 : formats.length == 1 ? formats[0] : formats[i];
    }

    /** ErrorResponse (or NoticeResponse with type 'N'), with the fields clients show. */
    public static void error(final ByteBuf out, final char type, final String severity, final String sqlState,
                             final String message, final String detail, final String hint) {
        error(out, type, severity, sqlState, message, detail, hint, ErrorFields.NONE);
    }

    /**
     * ErrorResponse (or NoticeResponse), with the fields naming the object the error is about after the text
     * fields, in the order PostgreSQL's elog.c sends them: S V C M D H, then s t c d n.
     */
    public static void error(final ByteBuf out, final char type, final String severity, final String sqlState,
                             final String message, final String detail, final String hint,
                             final ErrorFields fields) {
        final int at = begin(out, type);
        out.writeByte('S');
        cstring(out, severity);
        out.writeByte('V');
        cstring(out, severity);
        out.writeByte('C');
        cstring(out, sqlState);
        out.writeByte('M');
        cstring(out, message);
        if (detail != null) {
            out.writeByte('D');
            cstring(out, detail);
        }
        if (hint != null) {
            out.writeByte('H');
            cstring(out, hint);
        }
        field(out, 's', fields.schema());
        field(out, 't', fields.table());
        field(out, 'c', fields.column());
        field(out, 'd', fields.datatype());
        field(out, 'n', fields.constraint());
        out.writeByte(0);
        end(out, at);
    }

    private static void field(final ByteBuf out, final char code, final String value) {
        if (value != null) {
            out.writeByte(code);
            cstring(out, value);
        }
    }

    /** CopyInResponse: the client may now send CopyData in text format for {@code columns} columns. */
    public static void copyInResponse(final ByteBuf out, final int columns) {
        final int at = begin(out, 'G');
        out.writeByte(0);
        out.writeShort(columns);
        for (int i = 0; i < columns; i++) {
            out.writeShort(0);
        }
        end(out, at);
    }

    /** CopyOutResponse: text format for every column. */
    public static void copyOutResponse(final ByteBuf out, final int columns) {
        final int at = begin(out, 'H');
        out.writeByte(0);
        out.writeShort(columns);
        for (int i = 0; i < columns; i++) {
            out.writeShort(0);
        }
        end(out, at);
    }

    /** CopyData with {@code text} (a row and its newline) as UTF-8. */
    public static void copyData(final ByteBuf out, final CharSequence text) {
        final int at = begin(out, 'd');
        out.writeCharSequence(text, java.nio.charset.StandardCharsets.UTF_8);
        end(out, at);
    }

    public static void copyDone(final ByteBuf out) {
        end(out, begin(out, 'c'));
    }
}
