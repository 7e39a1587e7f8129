package io.meldb.sql.calcite;

import org.apache.calcite.DataContext;
import org.apache.calcite.schema.Function;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;

import java.util.List;
import java.util.Map;

/**
 * PostgreSQL's array dimension functions over MeldDB's one-dimensional arrays, whose subscripts start at 1:
 * {@code array_lower(a, 1)} is 1, {@code array_upper(a, 1)} and {@code array_length(a, 1)} the number of elements;
 * an empty array, a NULL, or a dimension other than 1 answers NULL, as PostgreSQL answers for a dimension an array
 * does not have. {@code array_to_string(a, delimiter [, null_string])} joins the elements' text (NULLs left out, or
 * written as null_string; elements of text, integer, numeric and boolean arrays, 0A000 for others), and
 * {@code string_to_array(s, delimiter [, null_string])} splits text as PostgreSQL does (a NULL delimiter splits
 * into characters, an empty one keeps the whole string, an empty string is an empty array).
 */
public final class PgArrayFunctions {
    private PgArrayFunctions() {
    }

    /** The functions by their names, as the root schema lists them. */
    static Map<String, Function> functions() {
        return Map.of("array_lower", ScalarFunctionImpl.create(PgArrayFunctions.class, "lower"),
                "array_upper", ScalarFunctionImpl.create(PgArrayFunctions.class, "upper"),
                "array_length", ScalarFunctionImpl.create(PgArrayFunctions.class, "length"));
    }

    public static Integer lower(final Object array, final Integer dimension) {
        final List<?> l = elements(array, dimension);
        return l == null ? null : 1;
    }

    public static Integer upper(final Object array, final Integer dimension) {
        final List<?> l = elements(array, dimension);
        return l == null ? null : l.size();
    }

    public static Integer length(final Object array, final Integer dimension) {
        return upper(array, dimension);
    }

    /** The array functions with more than one arity, each under its name (the schema resolves them by count). */
    static List<Map.Entry<String, Function>> overloaded() {
        return List.of(
                Map.entry("array_to_string", ContextFunction.of(PgArrayFunctions.class, "arrayToString",
                        SqlTypeName.ANY, SqlTypeName.VARCHAR)),
                Map.entry("array_to_string", ContextFunction.of(PgArrayFunctions.class, "arrayToStringOrNull",
                        SqlTypeName.ANY, SqlTypeName.VARCHAR, SqlTypeName.VARCHAR)),
                Map.entry("string_to_array", ContextFunction.of(PgArrayFunctions.class, "stringToArray",
                        SqlTypeName.VARCHAR, SqlTypeName.VARCHAR)),
                Map.entry("string_to_array", ContextFunction.of(PgArrayFunctions.class, "stringToArrayOrNull",
                        SqlTypeName.VARCHAR, SqlTypeName.VARCHAR, SqlTypeName.VARCHAR)));
    }

    public static String arrayToString(final DataContext root, final Object array, final Object delimiter) {
        return arrayToStringOrNull(root, array, delimiter, null);
    }

    public static String arrayToStringOrNull(final DataContext root, final Object array, final Object delimiter,
                                             final Object nullString) {
        if (!(array instanceof List<?> l) || delimiter == null) {
            return null;
        }
        final StringBuilder b = new StringBuilder();
        join(l, delimiter.toString(), nullString == null ? null : nullString.toString(), b, new boolean[] {true});
        return b.toString();
    }

    private static void join(final List<?> elements, final String delimiter, final String nullString,
                             final StringBuilder out, final boolean[] first) {
        for (Object e : elements) {
            if (e instanceof List<?> sub) {
                join(sub, delimiter, nullString, out, first);
                continue;
            }
            if (e == null && nullString == null) {
                continue;
            }
            out.append(first[0] ? "" : delimiter).append(e == null ? nullString : text(e));
            first[0] = false;
        }
    }

    /** An element's text as PostgreSQL's output function writes it, for the element types this supports. */
    private static String text(final Object e) {
        if (e instanceof String || e instanceof Integer || e instanceof Long || e instanceof Short
                || e instanceof Byte) {
            return e.toString();
        }
        if (e instanceof java.math.BigDecimal d) {
            return d.toPlainString();
        }
        if (e instanceof Boolean b) {
            return b ? "t" : "f";
        }
        throw new io.meldb.sql.SqlStateException("0A000", "the text of an array of " + e.getClass().getSimpleName()
                + " values (array_to_string) is not supported yet: text, integer, numeric and boolean arrays "
                + "are");
    }

    public static List<String> stringToArray(final DataContext root, final Object text, final Object delimiter) {
        return stringToArrayOrNull(root, text, delimiter, null);
    }

    public static List<String> stringToArrayOrNull(final DataContext root, final Object text, final Object delimiter,
                                                   final Object nullString) {
        if (text == null) {
            return null;
        }
        final String s = text.toString();
        final List<String> out = new java.util.ArrayList<>();
        if (s.isEmpty()) {
            return out;
        }
        if (delimiter == null) {
            s.codePoints().forEach(c -> out.add(new String(Character.toChars(c))));
        } else if (delimiter.toString().isEmpty()) {
            out.add(s);
        } else {
            final String d = delimiter.toString();
            int from = 0;
            for (int at = s.indexOf(d); at >= 0; at = s.indexOf(d, from)) {
                out.add(s.substring(from, at));
                from = at + d.length();
            }
            out.add(s.substring(from));
        }
        if (nullString != null) {
            out.replaceAll(e -> e.equals(nullString.toString()) ? null : e);
        }
        return out;
    }

    /** The elements of a non-empty array asked for its first dimension, else null. */
    private static List<?> elements(final Object array, final Integer dimension) {
        if (!(array instanceof List<?> l) || dimension == null || dimension != 1 || l.isEmpty()) {
            return null;
        }
        return l;
    }
}
