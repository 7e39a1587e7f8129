package io.meldb.sql.codec;

import java.util.Locale;

/**
 * Text read as a boolean the way PostgreSQL's {@code boolin} reads it: {@code true}, {@code yes}, {@code false},
 * {@code no} or a prefix of one of them, {@code on}, {@code off} (or {@code of}), {@code 1}, {@code 0}; case and
 * surrounding white space aside. One rule for every place text becomes a boolean: a column's value, a constant in a
 * statement, a protocol parameter.
 */
public final class BooleanText {
    private BooleanText() {
    }

    /** The boolean {@code text} spells, or null when it spells none. */
    public static Boolean read(final String text) {
        final String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.isEmpty()) {
            return null;
        }
        if ("true".startsWith(t) || "yes".startsWith(t) || t.equals("on") || t.equals("1")) {
            return Boolean.TRUE;
        }
        if ("false".startsWith(t) || "no".startsWith(t) || t.equals("of") || t.equals("off") || t.equals("0")) {
            return Boolean.FALSE;
        }
        return null;
    }

    /** The boolean {@code text} spells; 22P02 naming it when it spells none. */
    public static boolean parse(final String text) {
        final Boolean b = read(text);
        if (b == null) {
            throw new ValueException("22P02", "invalid input syntax for type boolean: \"" + text + "\"");
        }
        return b;
    }
}
