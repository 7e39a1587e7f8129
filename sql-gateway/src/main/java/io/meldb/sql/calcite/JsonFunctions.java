package io.meldb.sql.calcite;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.meldb.sql.SqlStateException;
import org.apache.calcite.schema.Function;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * PostgreSQL's JSON operators, as the functions the parser reads them as ({@code io.meldb.sql.parser
 * .JsonAccessOperator}): {@code j -> 'key'}
 * ({@code json_field}), {@code j ->> 'key'} ({@code json_field_text}), {@code j -> n} ({@code json_element}) and
 * {@code j ->> n} ({@code json_element_text}). A JSON value in MeldDB is its text as written, so {@code ->} answers
 * the member's text as written (as PostgreSQL's json does), {@code ->>} a string member unquoted, a JSON null as
 * SQL NULL and anything else as its text. A missing key, an index past either end or a value of the wrong kind
 * (an object indexed by number) is NULL, as in PostgreSQL; a negative index counts from the end. Text that is no
 * JSON is 22P02.
 */
public final class JsonFunctions {
    private static final JsonFactory FACTORY = new JsonFactory();

    private JsonFunctions() {
    }

    /** The functions by their names, as the root schema lists them. */
    static Map<String, Function> functions() {
        return Map.of("json_field", ScalarFunctionImpl.create(JsonFunctions.class, "field"),
                "json_field_text", ScalarFunctionImpl.create(JsonFunctions.class, "fieldText"),
                "json_get", ScalarFunctionImpl.create(JsonFunctions.class, "get"),
                "json_get_text", ScalarFunctionImpl.create(JsonFunctions.class, "getText"),
                "json_element", ScalarFunctionImpl.create(JsonFunctions.class, "element"),
                "json_element_text", ScalarFunctionImpl.create(JsonFunctions.class, "elementText"));
    }

    public static String field(final String json, final String key) {
        return json == null || key == null ? null : member(json, key, -1, false);
    }

    public static String fieldText(final String json, final String key) {
        return json == null || key == null ? null : member(json, key, -1, true);
    }

    /**
     * {@code j -> k} for a key that is an expression: an integer (smallint, integer, bigint) is an index, as
     * PostgreSQL picks {@code json_array_element} for an integer operand, anything else a key by its text.
     */
    public static String get(final String json, final Object key) {
        return json == null || key == null ? null : key instanceof Number n ? member(json, null, index(n), false)
                : member(json, key.toString(), -1, false);
    }

    /** {@code j ->> k} for a key that is an expression (as {@link #get}). */
    public static String getText(final String json, final Object key) {
        return json == null || key == null ? null : key instanceof Number n ? member(json, null, index(n), true)
                : member(json, key.toString(), -1, true);
    }

    private static int index(final Number n) {
        if (n instanceof java.math.BigDecimal || n instanceof Double || n instanceof Float) {
            throw new SqlStateException("42883", "operator does not exist: json -> numeric");
        }
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, n.longValue()));
    }

    public static String element(final String json, final Integer index) {
        return json == null || index == null ? null : member(json, null, index, false);
    }

    public static String elementText(final String json, final Integer index) {
        return json == null || index == null ? null : member(json, null, index, true);
    }

    /** The member named {@code key} (or, when it is null, the element at {@code index}) of the JSON text. */
    private static String member(final String json, final String key, final int index, final boolean asText) {
        try (JsonParser p = FACTORY.createParser(json)) {
            final JsonToken top = p.nextToken();
            if (top == null) {
                throw notJson(json, "no value");
            }
            String found = null;
            if (key != null && top == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    final String name = p.currentName();
                    p.nextToken();
                    // PostgreSQL's json keeps duplicate keys and -> finds the last; jsonb keeps only the last
                    final String value = value(p, json, asText);
                    if (name.equals(key)) {
                        found = value;
                    }
                }
            } else if (key == null && top == JsonToken.START_ARRAY) {
                final List<String> elements = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    elements.add(value(p, json, asText));
                }
                final int at = index < 0 ? elements.size() + index : index;
                found = at >= 0 && at < elements.size() ? elements.get(at) : null;
            } else {
                p.skipChildren();
            }
            if (p.nextToken() != null) {
                throw notJson(json, "text after the value");
            }
            return found;
        } catch (JsonProcessingException e) {
            throw notJson(json, e.getOriginalMessage());
        } catch (IOException e) {
            throw new IllegalStateException("reading JSON from a string", e);
        }
    }

    /** The value at the parser's current token, as {@code ->} or {@code ->>} answers it; the parser moves past it. */
    private static String value(final JsonParser p, final String json, final boolean asText) throws IOException {
        final JsonToken t = p.currentToken();
        if (asText && t == JsonToken.VALUE_STRING) {
            return p.getText();
        }
        if (asText && t == JsonToken.VALUE_NULL) {
            return null;
        }
        final int start = (int) p.currentTokenLocation().getCharOffset();
        p.skipChildren();
        p.finishToken(); // a string's text is read lazily: the location would be inside it
        final int end = (int) p.currentLocation().getCharOffset();
        return json.substring(start, end);
    }

    private static SqlStateException notJson(final String json, final String why) {
        final String shown = json.length() > 40 ? json.substring(0, 40) + "..." : json;
        return new SqlStateException("22P02", "invalid input syntax for type json: " + why + " (in \"" + shown + "\")");
    }
}
