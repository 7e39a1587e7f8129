package io.meldb.sql.codec;

/**
 * Checks that a JSON or JSONB value is one JSON text (RFC 8259) before it is stored; MeldDB keeps a json value's
 * text as written (a jsonb value's as {@link JsonbText} prints it). A value that does not parse is 22P02, as PostgreSQL's {@code json_in} answers.
 */
final class JsonText {
    /** Deeper nesting is refused rather than risking the stack (PostgreSQL's limit is the stack depth). */
    private static final int MAX_DEPTH = 1_000;

    private final String s;
    private int pos;

    private JsonText(final String s) {
        this.s = s;
    }

    static void check(final String text) {
        final JsonText p = new JsonText(text);
        p.whitespace();
        p.value(0);
        p.whitespace();
        if (p.pos != text.length()) {
            throw p.error("unexpected text after the value");
        }
    }

    private void value(final int depth) {
        if (depth > MAX_DEPTH) {
            throw error("nesting deeper than " + MAX_DEPTH);
        }
        if (pos >= s.length()) {
            throw error("the input ends before a value");
        }
        final char c = s.charAt(pos);
        switch (c) {
            case '{' -> {
                pos++;
                whitespace();
                if (!accept('}')) {
                    do {
                        whitespace();
                        string();
                        whitespace();
                        expect(':');
                        whitespace();
                        value(depth + 1);
                        whitespace();
                    } while (accept(','));
                    expect('}');
                }
            }
            case '[' -> {
                pos++;
                whitespace();
                if (!accept(']')) {
                    do {
                        whitespace();
                        value(depth + 1);
                        whitespace();
                    } while (accept(','));
                    expect(']');
                }
            }
            case '"' -> string();
            case 't' -> word("true");
            case 'f' -> word("false");
            case 'n' -> word("null");
            default -> number();
        }
    }

    private void string() {
        expect('"');
        while (pos < s.length()) {
            final char c = s.charAt(pos++);
            if (c == '"') {
                return;
            }
            if (c < 0x20) {
                throw error("a control character must be escaped in a string");
            }
            if (c == '\\') {
                if (pos >= s.length()) {
                    break;
                }
                final char e = s.charAt(pos++);
                if (e == 'u') {
                    for (int i = 0; i < 4; i++) {
                        if (pos >= s.length() || Character.digit(s.charAt(pos++), 16) < 0) {
                            throw error("\\u must be followed by four hexadecimal digits");
                        }
                    }
                } else if ("\"\\/bfnrt".indexOf(e) < 0) {
                    throw error("escape sequence \"\\" + e + "\" is invalid");
                }
            }
        }
        throw error("the input ends inside a string");
    }

    private void number() {
        final int start = pos;
        accept('-');
        if (accept('0')) {
            // no leading zeros
        } else if (!digits()) {
            throw error("a value is expected");
        }
        if (accept('.') && !digits()) {
            throw error("digits must follow the decimal point");
        }
        if (accept('e') || accept('E')) {
            if (!accept('+')) {
                accept('-');
            }
            if (!digits()) {
                throw error("digits must follow the exponent");
            }
        }
        if (pos == start) {
            throw error("a value is expected");
        }
    }

    private boolean digits() {
        final int start = pos;
        while (pos < s.length() && s.charAt(pos) >= '0' && s.charAt(pos) <= '9') {
            pos++;
        }
        return pos > start;
    }

    private void word(final String w) {
        if (!s.startsWith(w, pos)) {
            throw error("a value is expected");
        }
        pos += w.length();
    }

    private void whitespace() {
        while (pos < s.length() && " \t\n\r".indexOf(s.charAt(pos)) >= 0) {
            pos++;
        }
    }

    private boolean accept(final char c) {
        if (pos < s.length() && s.charAt(pos) == c) {
            pos++;
            return true;
        }
        return false;
    }

    private void expect(final char c) {
        if (!accept(c)) {
            throw error("\"" + c + "\" is expected");
        }
    }

    private ValueException error(final String why) {
        final String shown = s.length() > 40 ? s.substring(0, 40) + "..." : s;
        return new ValueException("22P02", "invalid input syntax for type json: " + why + " at character "
                + (pos + 1) + " of \"" + shown + "\"");
    }
}
