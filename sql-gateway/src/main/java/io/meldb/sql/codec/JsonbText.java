package io.meldb.sql.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A jsonb value in PostgreSQL's canonical text, as {@code jsonb_out} prints it: an object's keys unique (the last
 * of duplicates wins) and ordered shorter first, then by their UTF-8 bytes; {@code ", "} between members and
 * elements and {@code ": "} after a key; strings decoded and escaped again as {@code escape_json} does (only
 * {@code "}, {@code \}, the short escapes and other control characters as a six-character escape with four hex digits); numbers as numeric
 * prints them ({@code 1e2} is {@code 100}, {@code 1.50} stays); no other whitespace. MeldDB stores a jsonb column's
 * value so, which makes its text, {@code ->} and comparisons PostgreSQL's. The input is checked first
 * ({@link JsonText}, 22P02); the escape of character 0 is 22P05, as jsonb cannot hold it.
 */
public final class JsonbText {
    private static final JsonFactory FACTORY = new JsonFactory();
    /** jsonb's key order: length first, then bytes (PostgreSQL's lengthCompareJsonbString). */
    private static final Comparator<String> KEY_ORDER = (a, b) -> {
        final byte[] x = a.getBytes(StandardCharsets.UTF_8);
        final byte[] y = b.getBytes(StandardCharsets.UTF_8);
        return x.length != y.length ? Integer.compare(x.length, y.length) : Arrays.compareUnsigned(x, y);
    };

    private JsonbText() {
    }

    /** {@code text} as PostgreSQL's jsonb prints it; 22P02 when it is no JSON. */
    public static String normalize(final String text) {
        JsonText.check(text);
        try (JsonParser p = FACTORY.createParser(text)) {
            p.nextToken();
            final StringBuilder out = new StringBuilder(text.length() + 8);
            value(p, out);
            return out.toString();
        } catch (IOException e) {
            throw new IllegalStateException("reading checked JSON", e);
        }
    }

    private static void value(final JsonParser p, final StringBuilder out) throws IOException {
        final JsonToken t = p.currentToken();
        switch (t) {
            case START_OBJECT -> {
                final Map<String, String> members = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    final String key = p.currentName();
                    p.nextToken();
                    final StringBuilder v = new StringBuilder();
                    value(p, v);
                    members.remove(key);
                    members.put(key, v.toString());
                }
                out.append('{');
                boolean first = true;
                for (String key : members.keySet().stream().sorted(KEY_ORDER).toList()) {
                    out.append(first ? "" : ", ");
                    string(key, out);
                    out.append(": ").append(members.get(key));
                    first = false;
                }
                out.append('}');
            }
            case START_ARRAY -> {
                out.append('[');
                boolean first = true;
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    out.append(first ? "" : ", ");
                    value(p, out);
                    first = false;
                }
                out.append(']');
            }
            case VALUE_STRING -> string(p.getText(), out);
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
                final BigDecimal n = new BigDecimal(p.getText());
                out.append(n.signum() == 0 && n.scale() <= 0 ? "0" : n.toPlainString());
            }
            case VALUE_TRUE -> out.append("true");
            case VALUE_FALSE -> out.append("false");
            case VALUE_NULL -> out.append("null");
            default -> throw new IllegalStateException("unexpected JSON token " + t);
        }
    }

    /** PostgreSQL's escape_json. */
    private static void string(final String s, final StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c == 0) {
                        throw new io.meldb.sql.SqlStateException("22P05", "unsupported Unicode escape sequence",
                                "\\u0000 cannot be converted to text.", null, null);
                    }
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
