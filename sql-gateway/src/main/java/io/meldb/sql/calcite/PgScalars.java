package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.InferTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlReturnTypeInference;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeTransforms;
import org.apache.calcite.sql.validate.SqlUserDefinedFunction;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * PostgreSQL's definitions of scalar functions and casts where Calcite's differ in what they accept or fail on:
 * text to uuid (braces and missing hyphens accepted, 22P02 otherwise), {@code overlay} past the end of the string,
 * {@code repeat} beyond PostgreSQL's 1 GB (54000), {@code chr} of 0 or past Unicode (54000), {@code substring(s from
 * pattern)} (a regular expression). {@link MeldConvertlets} puts these operators in place of Calcite's; they are
 * not names a statement can call.
 */
public final class PgScalars {
    /** PostgreSQL's MaxAllocSize: no text value is longer (in bytes). */
    static final long MAX_ALLOC = (1L << 30) - 1;
    /** The longest text the PostgreSQL front end can send in one field (three UTF-8 bytes a character reserved). */
    static final long MAX_SENT_CHARS = (Integer.MAX_VALUE - 64) / 3;

    private static final SqlReturnTypeInference TEXT = ReturnTypes.cascade(
            ReturnTypes.explicit(SqlTypeName.VARCHAR), SqlTypeTransforms.TO_NULLABLE);
    private static final SqlReturnTypeInference NULLABLE_TEXT = ReturnTypes.cascade(
            ReturnTypes.explicit(SqlTypeName.VARCHAR), SqlTypeTransforms.FORCE_NULLABLE);

    /** Text in PostgreSQL's uuid input forms, as the canonical text java.util.UUID reads. */
    public static final SqlUserDefinedFunction UUID_IN = function("uuid_in", TEXT, "uuidText");
    public static final SqlUserDefinedFunction OVERLAY = function("overlay", TEXT, "overlay");
    public static final SqlUserDefinedFunction OVERLAY_ALL = function("overlay", TEXT, "overlayAll");
    public static final SqlUserDefinedFunction REPEAT = function("repeat", TEXT, "repeat");
    public static final SqlUserDefinedFunction CHR = function("chr", TEXT, "chr");
    public static final SqlUserDefinedFunction SUBSTRING_REGEX = function("substring", NULLABLE_TEXT,
            "substringRegex");

    private PgScalars() {
    }

    private static SqlUserDefinedFunction function(final String name, final SqlReturnTypeInference type,
                                                   final String method) {
        return new SqlUserDefinedFunction(new SqlIdentifier(name, SqlParserPos.ZERO), SqlKind.OTHER_FUNCTION, type,
                InferTypes.FIRST_KNOWN, null, ScalarFunctionImpl.create(PgScalars.class, method));
    }

    /**
     * PostgreSQL's uuid input (string_to_uuid): 32 hex digits, optionally in braces, with an optional hyphen after
     * any group of four; answers the canonical form, or fails with 22P02.
     */
    public static String uuidText(final String text) {
        if (text == null) {
            return null;
        }
        final StringBuilder hex = new StringBuilder(36);
        int at = 0;
        final boolean braces = text.startsWith("{");
        if (braces) {
            at++;
        }
        for (int i = 0; i < 16; i++) {
            if (at + 1 >= text.length() || Character.digit(text.charAt(at), 16) < 0
                    || Character.digit(text.charAt(at + 1), 16) < 0) {
                throw badUuid(text);
            }
            hex.append(Character.toLowerCase(text.charAt(at))).append(Character.toLowerCase(text.charAt(at + 1)));
            at += 2;
            if (at < text.length() && text.charAt(at) == '-' && i % 2 == 1 && i < 15) {
                at++;
            }
            if (i == 3 || i == 5 || i == 7 || i == 9) {
                hex.append('-');
            }
        }
        if (braces) {
            if (at >= text.length() || text.charAt(at) != '}') {
                throw badUuid(text);
            }
            at++;
        }
        if (at != text.length()) {
            throw badUuid(text);
        }
        return hex.toString();
    }

    private static SqlStateException badUuid(final String text) {
        return new SqlStateException("22P02", "invalid input syntax for type uuid: \"" + text + "\"");
    }

    /** overlay(s placing r from start for count): s's first start-1 characters, r, s from start+count on. */
    public static String overlay(final String s, final String r, final Integer start, final Integer count) {
        if (s == null || r == null || start == null || count == null) {
            return null;
        }
        if (start < 1) {
            throw new SqlStateException("22011", "negative substring length not allowed");
        }
        final int n = s.codePointCount(0, s.length());
        final long tail = Math.max(0L, Math.min(n, (long) start + count - 1));
        return s.substring(0, s.offsetByCodePoints(0, Math.min(n, start - 1))) + r
                + s.substring(s.offsetByCodePoints(0, (int) tail));
    }

    /** overlay(s placing r from start): the count is r's length. */
    public static String overlayAll(final String s, final String r, final Integer start) {
        return r == null ? null : overlay(s, r, start, r.codePointCount(0, r.length()));
    }

    /** repeat(s, n): PostgreSQL refuses a result over 1 GB with 54000 rather than allocating it. */
    public static String repeat(final String s, final Integer n) {
        if (s == null || n == null) {
            return null;
        }
        if (n <= 0 || s.isEmpty()) {
            return "";
        }
        // PostgreSQL's limit, and MeldDB's: no field longer than a third of 2 GB in characters can be sent (PgValues)
        if ((long) s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length * n + Integer.BYTES > MAX_ALLOC
                || (long) s.length() * n > MAX_SENT_CHARS) {
            throw new SqlStateException("54000", "requested length too large");
        }
        return s.repeat(n);
    }

    /** chr(n): the character with code point n; PostgreSQL refuses 0 and what UTF-8 cannot hold (54000). */
    public static String chr(final Integer n) {
        if (n == null) {
            return null;
        }
        if (n == 0) {
            throw new SqlStateException("54000", "null character not permitted");
        }
        if (n < 0) {
            throw new SqlStateException("54000", "character number must be positive");
        }
        if (n > Character.MAX_CODE_POINT) {
            throw new SqlStateException("54000", "requested character too large for encoding: " + n);
        }
        if (n >= Character.MIN_SURROGATE && n <= Character.MAX_SURROGATE) {
            throw new SqlStateException("54000", "requested character not valid for encoding: " + n);
        }
        return new String(Character.toChars(n));
    }

    /**
     * substring(s from pattern): the part of s the regular expression matches first, or what its first
     * parenthesized group matches when it has one; NULL when nothing matches.
     */
    public static String substringRegex(final String s, final String pattern) {
        if (s == null || pattern == null) {
            return null;
        }
        final Matcher m;
        try {
            m = Pattern.compile(pattern).matcher(s);
        } catch (PatternSyntaxException e) {
            throw new SqlStateException("2201B", "invalid regular expression: " + e.getDescription());
        }
        if (!m.find()) {
            return null;
        }
        return m.groupCount() > 0 ? m.group(1) : m.group();
    }
}
