package io.meldb.sql.pg;

import io.netty.buffer.ByteBuf;

/**
 * Reads a statement's text once, byte by byte, and makes its shape: the integer literals in value positions
 * replaced by $1..$n (the rule of {@link PgLiteralLifter}), their values kept as longs. It reads the UTF-8 bytes of a
 * Query message where they are, without making a String: every character SQL syntax uses here is ASCII, and every
 * byte of a multi-byte character is 0x80 or above, which this scanner takes as part of a word (so a literal next
 * to one is never lifted). Its arrays are reused: scanning a statement allocates nothing once they have grown.
 *
 * <p>Refused (answered {@link #NONE}, for the caller's general path): text with a '$', a '?' or a "::" anywhere
 * (parameters or casts of its own), block comments and E'' strings (whose nesting and escapes the general path
 * reads), an unterminated quote, nothing but blanks, and in one-statement mode more than one statement.
 */
final class PgShapeScanner {
    /** Not a shape this scanner makes (see the class comment). */
    static final int NONE = 0;
    /** One statement with no literal lifted: its shape is its text. */
    static final int PLAIN = 1;
    /** One statement with at least one literal lifted. */
    static final int LIFTED = 2;

    /** Longest integer literal lifted (fits a long whatever its digits). */
    private static final int MAX_DIGITS = 18;
    private static final byte WORD = 1;
    private static final byte QUOTED = 2;
    private static final byte NUMBER = 3;
    private static final byte STRING = 4;
    private static final byte SYMBOL = 5;
    /** {@link #skipQuoted}: the quote is not closed, or holds a byte that refuses the text. */
    private static final int REFUSED = -1;

    private byte[] shape = new byte[256];
    private int shapeLength;
    private int hash;
    private long[] values = new long[8];
    private int count;

    // the last two tokens: kind, the symbol's byte, and where the last one starts
    private byte lastKind;
    private int lastSymbol;
    private int lastAt;
    private byte beforeKind;
    private int beforeSymbol;

    /** The shape's bytes (UTF-8), valid up to {@link #shapeLength} until the next scan. */
    byte[] shape() {
        return shape;
    }

    int shapeLength() {
        return shapeLength;
    }

    /** A hash of the shape's bytes. */
    int hash() {
        return hash;
    }

    /** The lifted literals' values, in order, valid up to {@link #count}. */
    long[] values() {
        return values;
    }

    int count() {
        return count;
    }

    /**
     * Scans {@code in}'s bytes {@code [from, to)}. In one-statement mode (a Query message) a ';' ends the statement
     * (only blanks and line comments may follow it) and is not part of the shape; otherwise it is a symbol like
     * any other. Answers {@link #NONE}, {@link #PLAIN} or {@link #LIFTED}.
     */
    int scan(final ByteBuf in, final int from, final int to, final boolean oneStatement) {
        count = 0;
        shapeLength = 0;
        lastKind = 0;
        beforeKind = 0;
        int copied = from;
        int end = to;
        boolean content = false;
        boolean inValues = false;
        int depth = 0;
        int i = from;
        while (i < to) {
            final int c = in.getByte(i) & 0xff;
            final int next = i + 1 < to ? in.getByte(i + 1) & 0xff : -1;
            if (space(c)) {
                i++;
            } else if (c == '-' && next == '-') {
                i = lineEnd(in, i, to);
            } else if (c == '/' && next == '*' || c == '$' || c == '?' || c == ':' && next == ':') {
                return NONE;
            } else if (c == ';' && oneStatement) {
                end = i;
                if (!blank(in, i + 1, to)) {
                    return NONE;
                }
                break;
            } else if (wordStart(c)) {
                final int start = i;
                while (i < to && wordPart(in.getByte(i) & 0xff)) {
                    i++;
                }
                if (next == '\'' && i == start + 1 && (c | 0x20) == 'e') {
                    return NONE; // E'...': backslash escapes
                }
                if (isValues(in, start, i)) {
                    inValues = true;
                } else if (depth == 0) {
                    inValues = false; // RETURNING, ON CONFLICT, SELECT ...: past the rows
                }
                push(WORD, 0, start);
                content = true;
            } else if (c == '"' || c == '\'') {
                final int start = i;
                i = skipQuoted(in, i, to, c);
                if (i == REFUSED) {
                    return NONE;
                }
                push(c == '"' ? QUOTED : STRING, 0, start);
                content = true;
            } else if (c >= '0' && c <= '9') {
                final int start = i;
                boolean integer = true;
                long v = 0;
                while (i < to) {
                    final int d = in.getByte(i) & 0xff;
                    if (d == '.') {
                        integer = false;
                    } else if (d >= '0' && d <= '9') {
                        v = v * 10 + (d - '0'); // past MAX_DIGITS it is not lifted, so overflow does not matter
                    } else {
                        break;
                    }
                    i++;
                }
                integer &= i - start <= MAX_DIGITS && (i >= to || !wordPart(in.getByte(i) & 0xff));
                if (integer) {
                    copied = lift(in, copied, start, i, v, inValues && depth == 1);
                }
                push(NUMBER, 0, start);
                content = true;
            } else {
                if (c == '(') {
                    depth++;
                } else if (c == ')') {
                    depth--;
                }
                push(SYMBOL, c, i);
                content = true;
                i++;
            }
        }
        if (!content) {
            return NONE;
        }
        append(in, copied, end);
        int h = 1;
        for (int k = 0; k < shapeLength; k++) {
            h = 31 * h + shape[k];
        }
        hash = h;
        return count == 0 ? PLAIN : LIFTED;
    }

    /**
     * The integer {@code [start, end)} of value {@code v}: lifted when a value stands there (after a comparison or
     * arithmetic operator, or as a whole item of a VALUES row), with a unary minus before it taken in. Answers
     * where the shape has been copied up to.
     */
    private int lift(final ByteBuf in, final int copied, final int start, final int end, final long v,
                     final boolean valuesItem) {
        int from = start;
        long value = v;
        int before = lastKind == SYMBOL ? lastSymbol : -1;
        if (lastKind == SYMBOL && lastSymbol == '-' && beforeKind == SYMBOL && "=<>+*(,".indexOf(beforeSymbol) >= 0) {
            from = lastAt; // "= -5", "(-5": a negative literal
            value = -v;
            before = beforeSymbol;
        }
        final boolean operator = before == '=' || before == '<' || before == '>' || before == '+' || before == '-'
                || before == '*';
        if (!operator && !(valuesItem && (before == '(' || before == ','))) {
            return copied;
        }
        append(in, copied, from);
        if (count == values.length) {
            values = java.util.Arrays.copyOf(values, count * 2);
        }
        values[count++] = value;
        appendByte('$');
        appendNumber(count);
        return end;
    }

    private void push(final byte kind, final int symbol, final int at) {
        beforeKind = lastKind;
        beforeSymbol = lastSymbol;
        lastKind = kind;
        lastSymbol = symbol;
        lastAt = at;
    }

    private void append(final ByteBuf in, final int from, final int to) {
        final int n = to - from;
        if (n <= 0) {
            return;
        }
        ensure(n);
        in.getBytes(from, shape, shapeLength, n);
        shapeLength += n;
    }

    private void appendByte(final int b) {
        ensure(1);
        shape[shapeLength++] = (byte) b;
    }

    private void appendNumber(final int n) {
        if (n >= 10) {
            appendNumber(n / 10);
        }
        appendByte('0' + n % 10);
    }

    private void ensure(final int more) {
        if (shapeLength + more > shape.length) {
            shape = java.util.Arrays.copyOf(shape, Math.max(shape.length * 2, shapeLength + more));
        }
    }

    /** Java's whitespace among the ASCII characters (what {@code Character.isWhitespace} answers for them). */
    private static boolean space(final int c) {
        return c == ' ' || c >= 0x09 && c <= 0x0d || c >= 0x1c && c <= 0x1f;
    }

    private static boolean wordStart(final int c) {
        return (c | 0x20) >= 'a' && (c | 0x20) <= 'z' || c == '_' || c >= 0x80;
    }

    private static boolean wordPart(final int c) {
        return wordStart(c) || c >= '0' && c <= '9' || c == '$';
    }

    private static boolean isValues(final ByteBuf in, final int from, final int to) {
        if (to - from != 6) {
            return false;
        }
        final String values = "values";
        for (int k = 0; k < 6; k++) {
            if ((in.getByte(from + k) | 0x20) != values.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /** The index of the end of the line comment at {@code i} (its newline, or {@code to}). */
    private static int lineEnd(final ByteBuf in, final int i, final int to) {
        int k = i;
        while (k < to && in.getByte(k) != '\n') {
            k++;
        }
        return k;
    }

    /** Whether {@code [from, to)} holds only blanks and line comments. */
    private static boolean blank(final ByteBuf in, final int from, final int to) {
        int i = from;
        while (i < to) {
            final int c = in.getByte(i) & 0xff;
            if (space(c)) {
                i++;
            } else if (c == '-' && i + 1 < to && in.getByte(i + 1) == '-') {
                i = lineEnd(in, i, to);
            } else {
                return false;
            }
        }
        return true;
    }

    /** The index after the quoted text opening at {@code open} (a doubled quote stays inside), or REFUSED. */
    private static int skipQuoted(final ByteBuf in, final int open, final int to, final int quote) {
        int i = open + 1;
        while (i < to) {
            final int c = in.getByte(i) & 0xff;
            if (c == '$' || c == '?' || c == ':' && i + 1 < to && in.getByte(i + 1) == ':') {
                return REFUSED; // as the literal lifter always did: such text keeps its literals
            }
            if (c == quote) {
                if (i + 1 < to && (in.getByte(i + 1) & 0xff) == quote) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        return REFUSED;
    }
}
