package io.meldb.sql.pg.catalog;

import io.meldb.sql.SqlStateException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A relation name given as text where PostgreSQL reads a {@code regclass} ({@code pg_get_serial_sequence('t',
 * 'id')}, {@code 'public.t'::regclass}): dot-separated parts, each either double-quoted (kept as written, {@code ""}
 * for a quote) or bare (folded to lower case), as PostgreSQL's {@code stringToQualifiedNameList} reads them.
 */
final class RegclassName {
    private RegclassName() {
    }

    /** {schema or null, relation}; a malformed name is 42602, as in PostgreSQL. */
    static String[] parse(final String text) {
        final List<String> parts = new ArrayList<>();
        final String s = text.trim();
        int i = 0;
        while (true) {
            final StringBuilder part = new StringBuilder();
            if (i < s.length() && s.charAt(i) == '"') {
                i++;
                while (true) {
                    if (i >= s.length()) {
                        throw invalid(text);
                    }
                    final char ch = s.charAt(i++);
                    if (ch == '"') {
                        if (i < s.length() && s.charAt(i) == '"') {
                            part.append('"');
                            i++;
                        } else {
                            break;
                        }
                    } else {
                        part.append(ch);
                    }
                }
            } else {
                while (i < s.length() && s.charAt(i) != '.') {
                    final char ch = s.charAt(i++);
                    if (ch == '"' || Character.isWhitespace(ch)) {
                        throw invalid(text);
                    }
                    part.append(ch);
                }
                if (part.length() == 0) {
                    throw invalid(text);
                }
                parts.add(part.toString().toLowerCase(Locale.ROOT));
                if (i >= s.length()) {
                    break;
                }
                i++; // the dot
                continue;
            }
            parts.add(part.toString());
            if (i >= s.length()) {
                break;
            }
            if (s.charAt(i) != '.') {
                throw invalid(text);
            }
            i++;
        }
        if (parts.size() > 3) {
            throw new SqlStateException("42601", "improper relation name (too many dotted names): " + text);
        }
        return new String[] {parts.size() >= 2 ? parts.get(parts.size() - 2) : null, parts.get(parts.size() - 1)};
    }

    private static SqlStateException invalid(final String text) {
        return new SqlStateException("42602", "invalid name syntax");
    }
}
