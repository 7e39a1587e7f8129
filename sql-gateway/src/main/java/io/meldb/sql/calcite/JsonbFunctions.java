package io.meldb.sql.calcite;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.meldb.sql.SqlStateException;
import org.apache.calcite.schema.Function;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The functions behind PostgreSQL's jsonb operators, as PostgreSQL names them ({@code io.meldb.sql.parser
 * .FunctionOperator} reads the operators): {@code j ? k} ({@code jsonb_exists}: k is a key of the object, a string
 * element of the array, or the string itself), {@code j ?| ks} and {@code j ?& ks} (any or all of the text array
 * ks), {@code a @> b} ({@code jsonb_contains}) and {@code a <@ b} ({@code jsonb_contained}) with PostgreSQL's
 * containment rules (JsonbDeepContains): an object contains an object whose every key it has with a contained
 * value; an array contains an array whose every element is contained in one of its elements; an array contains a
 * scalar it holds, at the top level only; scalars are equal (numbers by value: {@code 1.0} is {@code 1}). Text that
 * is no JSON is 22P02.
 */
public final class JsonbFunctions {
    private static final JsonFactory FACTORY = new JsonFactory();
    /** JSON null, as a parsed value (Java null is SQL NULL). */
    private static final Object NULL = new Object();

    private JsonbFunctions() {
    }

    /** The functions by their names, as the root schema lists them. */
    static Map<String, Function> functions() {
        return Map.of("jsonb_exists", ScalarFunctionImpl.create(JsonbFunctions.class, "exists"),
                "jsonb_exists_any", ScalarFunctionImpl.create(JsonbFunctions.class, "existsAny"),
                "jsonb_exists_all", ScalarFunctionImpl.create(JsonbFunctions.class, "existsAll"),
                "jsonb_contains", ScalarFunctionImpl.create(JsonbFunctions.class, "contains"),
                "jsonb_contained", ScalarFunctionImpl.create(JsonbFunctions.class, "contained"));
    }

    /** {@code x::jsonb}: the text as jsonb prints it (JsonbText), so that a jsonb value reads as PostgreSQL's. */
    public static String in(final String text) {
        return text == null ? null : io.meldb.sql.codec.JsonbText.normalize(text);
    }

    private static final org.apache.calcite.sql.validate.SqlUserDefinedFunction JSONB_IN =
            new org.apache.calcite.sql.validate.SqlUserDefinedFunction(new org.apache.calcite.sql.SqlIdentifier(
                    "jsonb_in", org.apache.calcite.sql.parser.SqlParserPos.ZERO),
                    org.apache.calcite.sql.SqlKind.OTHER_FUNCTION, org.apache.calcite.sql.type.ReturnTypes.ARG0,
                    org.apache.calcite.sql.type.InferTypes.FIRST_KNOWN, null,
                    ScalarFunctionImpl.create(JsonbFunctions.class, "in"));

    /** The conversion of a cast to jsonb: the cast to text (the planner's type of jsonb), then {@link #in}. */
    static org.apache.calcite.rex.RexNode cast(final org.apache.calcite.sql2rel.SqlRexContext cx,
                                              final org.apache.calcite.sql.SqlCall cast) {
        final org.apache.calcite.rex.RexBuilder rex = cx.getRexBuilder();
        final org.apache.calcite.rel.type.RelDataType type = cx.getValidator().getValidatedNodeType(cast);
        final org.apache.calcite.rex.RexNode text = rex.makeCast(type, cx.convertExpression(cast.operand(0)),
                true, false);
        return rex.makeCall(type, JSONB_IN, java.util.List.of(text));
    }

    public static Boolean exists(final String json, final String key) {
        return json == null || key == null ? null : has(parse(json), key);
    }

    public static Boolean existsAny(final String json, final List<?> keys) {
        if (json == null || keys == null) {
            return null;
        }
        final Object value = parse(json);
        for (Object k : keys) {
            if (k != null && has(value, k.toString())) {
                return true;
            }
        }
        return false;
    }

    public static Boolean existsAll(final String json, final List<?> keys) {
        if (json == null || keys == null) {
            return null;
        }
        final Object value = parse(json);
        for (Object k : keys) {
            if (k != null && !has(value, k.toString())) {
                return false;
            }
        }
        return true;
    }

    public static Boolean contains(final String json, final String other) {
        return json == null || other == null ? null : containsTop(parse(json), parse(other));
    }

    public static Boolean contained(final String json, final String other) {
        return json == null || other == null ? null : containsTop(parse(other), parse(json));
    }

    private static boolean has(final Object value, final String key) {
        if (value instanceof Map<?, ?> m) {
            return m.containsKey(key);
        }
        if (value instanceof List<?> l) {
            return l.contains(key);
        }
        return key.equals(value);
    }

    private static boolean containsTop(final Object a, final Object b) {
        if (a instanceof List<?> array && !(b instanceof List<?>) && !(b instanceof Map<?, ?>)) {
            for (Object e : array) {
                if (scalarEquals(e, b)) {
                    return true;
                }
            }
            return false;
        }
        return deepContains(a, b);
    }

    private static boolean deepContains(final Object a, final Object b) {
        if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
            for (Map.Entry<?, ?> e : y.entrySet()) {
                if (!x.containsKey(e.getKey()) || !deepContains(x.get(e.getKey()), e.getValue())) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
            for (Object wanted : y) {
                boolean found = false;
                for (Object e : x) {
                    if (deepContains(e, wanted)) {
                        found = true;
                        break;
                    }
                }
                if (!found) {
                    return false;
                }
            }
            return true;
        }
        return scalarEquals(a, b);
    }

    private static boolean scalarEquals(final Object a, final Object b) {
        if (a instanceof Map || a instanceof List || b instanceof Map || b instanceof List) {
            return false;
        }
        if (a instanceof BigDecimal x && b instanceof BigDecimal y) {
            return x.compareTo(y) == 0;
        }
        return a.equals(b);
    }

    /** The JSON text as maps (keys unique, the last wins), lists, strings, BigDecimals, Booleans and NULL. */
    private static Object parse(final String json) {
        try (JsonParser p = FACTORY.createParser(json)) {
            if (p.nextToken() == null) {
                throw notJson(json, "no value");
            }
            final Object v = value(p);
            if (p.nextToken() != null) {
                throw notJson(json, "text after the value");
            }
            return v;
        } catch (JsonProcessingException e) {
            throw notJson(json, e.getOriginalMessage());
        } catch (IOException e) {
            throw new IllegalStateException("reading JSON from a string", e);
        }
    }

    private static Object value(final JsonParser p) throws IOException {
        final JsonToken t = p.currentToken();
        return switch (t) {
            case START_OBJECT -> {
                final Map<String, Object> m = new HashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    final String key = p.currentName();
                    p.nextToken();
                    m.put(key, value(p));
                }
                yield m;
            }
            case START_ARRAY -> {
                final List<Object> l = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    l.add(value(p));
                }
                yield l;
            }
            case VALUE_STRING -> p.getText();
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> new BigDecimal(p.getText());
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            case VALUE_NULL -> NULL;
            default -> throw new IllegalStateException("unexpected JSON token " + t);
        };
    }

    private static SqlStateException notJson(final String json, final String why) {
        final String shown = json.length() > 40 ? json.substring(0, 40) + "..." : json;
        return new SqlStateException("22P02", "invalid input syntax for type json: " + why + " (in \"" + shown + "\")");
    }
}
