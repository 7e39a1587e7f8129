package io.meldb.sql.calcite;

import org.apache.calcite.schema.Function;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;

import java.util.List;
import java.util.Map;

/**
 * PostgreSQL's array dimension functions over MeldDB's one-dimensional arrays, whose subscripts start at 1:
 * {@code array_lower(a, 1)} is 1, {@code array_upper(a, 1)} and {@code array_length(a, 1)} the number of elements;
 * an empty array, a NULL, or a dimension other than 1 answers NULL, as PostgreSQL answers for a dimension an array
 * does not have.
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

    /** The elements of a non-empty array asked for its first dimension, else null. */
    private static List<?> elements(final Object array, final Integer dimension) {
        if (!(array instanceof List<?> l) || dimension == null || dimension != 1 || l.isEmpty()) {
            return null;
        }
        return l;
    }
}
