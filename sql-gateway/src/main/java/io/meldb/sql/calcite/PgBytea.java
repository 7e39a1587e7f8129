package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.avatica.util.ByteString;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.InferTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeTransforms;
import org.apache.calcite.sql.validate.SqlUserDefinedFunction;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * PostgreSQL's bytea input ({@code byteain}): text cast to bytea is read in the hex format ({@code '\x4142'}: pairs of
 * hex digits, blanks between pairs allowed) or the escape format ({@code \\} a backslash, {@code \ooo} an octal byte,
 * any other character its UTF-8 bytes); anything else is an error, as in PostgreSQL. Calcite's cast takes the text's
 * UTF-8 bytes, so {@code length('\x00ff'::bytea)} was 6, not 2.
 */
public final class PgBytea {
    /** bytea input of a text, for {@link MeldConvertlets}' cast. */
    public static final SqlUserDefinedFunction INPUT = new SqlUserDefinedFunction(
            new SqlIdentifier("byteain", SqlParserPos.ZERO), SqlKind.OTHER_FUNCTION,
            ReturnTypes.cascade(ReturnTypes.explicit(SqlTypeName.VARBINARY), SqlTypeTransforms.TO_NULLABLE),
            InferTypes.FIRST_KNOWN, null, ScalarFunctionImpl.create(PgBytea.class, "input"));

    private PgBytea() {
    }

    /** The bytes {@code text} stands for; 22P02 or 22023 for text that is not bytea input. */
    public static ByteString input(final String text) {
        if (text == null) {
            return null;
        }
        return new ByteString(text.startsWith("\\x") ? hex(text) : escaped(text));
    }

    private static byte[] hex(final String text) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream(text.length() / 2);
        int i = 2;
        while (i < text.length()) {
            final char c = text.charAt(i);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                i++;
                continue;
            }
            final int high = digit(c);
            if (i + 1 >= text.length()) {
                throw new SqlStateException("22023", "invalid hexadecimal data: odd number of digits");
            }
            final int low = digit(text.charAt(i + 1));
            out.write(high << 4 | low);
            i += 2;
        }
        return out.toByteArray();
    }

    private static int digit(final char c) {
        final int d = Character.digit(c, 16);
        if (d < 0 || c > 'f') {
            throw new SqlStateException("22023", "invalid hexadecimal digit: \"" + c + "\"");
        }
        return d;
    }

    private static byte[] escaped(final String text) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream(text.length());
        int i = 0;
        while (i < text.length()) {
            final char c = text.charAt(i);
            if (c != '\\') {
                final int end = text.indexOf('\\', i) < 0 ? text.length() : text.indexOf('\\', i);
                out.writeBytes(text.substring(i, end).getBytes(StandardCharsets.UTF_8));
                i = end;
            } else if (i + 1 < text.length() && text.charAt(i + 1) == '\\') {
                out.write('\\');
                i += 2;
            } else if (i + 3 < text.length() && octal(text.charAt(i + 1), '3') && octal(text.charAt(i + 2), '7')
                    && octal(text.charAt(i + 3), '7')) {
                out.write((text.charAt(i + 1) - '0') << 6 | (text.charAt(i + 2) - '0') << 3 | text.charAt(i + 3) - '0');
                i += 4;
            } else {
                throw new SqlStateException("22P02", "invalid input syntax for type bytea");
            }
        }
        return out.toByteArray();
    }

    private static boolean octal(final char c, final char max) {
        return c >= '0' && c <= max;
    }
}
