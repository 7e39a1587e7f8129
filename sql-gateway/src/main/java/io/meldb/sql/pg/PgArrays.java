package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * An array value (a list of element values, nested lists for more dimensions) in PostgreSQL's array forms, as
 * {@code array_out} and {@code array_send} write it. Text: {@code {1,2,NULL}}, {@code {{1,2},{3,4}}}, an element
 * in double quotes when it is empty, is {@code NULL} in any case, or holds a blank, a comma, a brace, a quote or a
 * backslash (those two escaped with a backslash), {@code {}} for an empty array. Binary: the number of dimensions,
 * whether any element is NULL, the element type's OID, each dimension's length and lower bound (1), then each
 * element as a length-prefixed binary value (-1 for NULL). Elements are written as {@link PgValues} writes values
 * of the element type. A multidimensional array whose sub-arrays differ in length is 2202E, as in PostgreSQL.
 */
final class PgArrays {
    private PgArrays() {
    }

    /** Writes {@code value} (a {@link List}) as a field of array type {@code type}: its length, then its bytes. */
    static void write(final ByteBuf out, final PgType type, final Object value, final boolean binary,
                      final java.time.ZoneId zone) {
        final List<?> array = (List<?>) value;
        final PgType element = type.element();
        final List<Integer> dims = new ArrayList<>();
        dimensions(array, dims, 0);
        final int at = out.writerIndex();
        out.writeInt(0);
        if (binary) {
            writeBinary(out, array, element, dims, zone);
        } else {
            writeText(out, array, element, zone);
        }
        out.setInt(at, out.writerIndex() - at - 4);
    }

    /** The lengths of each dimension; 2202E when sub-arrays of one level differ in length or depth. */
    private static void dimensions(final List<?> array, final List<Integer> dims, final int level) {
        if (dims.size() == level) {
            if (array.isEmpty() && level > 0) {
                throw ragged();
            }
            dims.add(array.size());
            if (!array.isEmpty() && array.get(0) instanceof List<?> first) {
                dimensions(first, dims, level + 1);
            }
        } else if (dims.get(level) != array.size()) {
            throw ragged();
        }
        final boolean deeper = dims.size() > level + 1;
        for (Object e : array) {
            if ((e instanceof List<?>) != deeper) {
                throw ragged();
            }
            if (deeper) {
                dimensions((List<?>) e, dims, level + 1);
            }
        }
    }

    private static SqlStateException ragged() {
        return new SqlStateException("2202E",
                "multidimensional arrays must have array expressions with matching dimensions");
    }

    private static void writeText(final ByteBuf out, final List<?> array, final PgType element,
                                  final java.time.ZoneId zone) {
        out.writeByte('{');
        boolean first = true;
        for (Object e : array) {
            if (!first) {
                out.writeByte(',');
            }
            first = false;
            if (e instanceof List<?> sub) {
                writeText(out, sub, element, zone);
            } else if (e == null) {
                out.writeCharSequence("NULL", StandardCharsets.US_ASCII);
            } else {
                writeElementText(out, elementText(element, e, zone));
            }
        }
        out.writeByte('}');
    }

    /** The element's text form, as a field of the element type would carry it. */
    private static String elementText(final PgType element, final Object e, final java.time.ZoneId zone) {
        final ByteBuf tmp = Unpooled.buffer(32);
        try {
            PgValues.writeValue(tmp, element, e, false, zone);
            final int n = tmp.readInt();
            return tmp.toString(tmp.readerIndex(), n, StandardCharsets.UTF_8);
        } finally {
            tmp.release();
        }
    }

    private static void writeElementText(final ByteBuf out, final String s) {
        boolean quote = s.isEmpty() || s.equalsIgnoreCase("NULL");
        for (int i = 0; i < s.length() && !quote; i++) {
            final char c = s.charAt(i);
            quote = c == '{' || c == '}' || c == ',' || c == '"' || c == '\\' || Character.isWhitespace(c);
        }
        if (!quote) {
            out.writeCharSequence(s, StandardCharsets.UTF_8);
            return;
        }
        out.writeByte('"');
        out.writeCharSequence(s.replace("\\", "\\\\").replace("\"", "\\\""), StandardCharsets.UTF_8);
        out.writeByte('"');
    }

    private static void writeBinary(final ByteBuf out, final List<?> array, final PgType element,
                                    final List<Integer> dims, final java.time.ZoneId zone) {
        final boolean empty = dims.get(0) == 0;
        out.writeInt(empty ? 0 : dims.size());
        out.writeInt(hasNull(array) ? 1 : 0);
        out.writeInt(element.oid());
        if (!empty) {
            for (int d : dims) {
                out.writeInt(d).writeInt(1);
            }
        }
        writeElements(out, array, element, zone);
    }

    private static boolean hasNull(final List<?> array) {
        for (Object e : array) {
            if (e == null || e instanceof List<?> sub && hasNull(sub)) {
                return true;
            }
        }
        return false;
    }

    private static void writeElements(final ByteBuf out, final List<?> array, final PgType element,
                                      final java.time.ZoneId zone) {
        for (Object e : array) {
            if (e instanceof List<?> sub) {
                writeElements(out, sub, element, zone);
            } else {
                PgValues.writeValue(out, element, e, true, zone);
            }
        }
    }
}
