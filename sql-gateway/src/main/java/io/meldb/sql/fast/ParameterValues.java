package io.meldb.sql.fast;

/**
 * The parameter values of one execution, reused from execution to execution by the front end that binds them:
 * a value is an object (in the Java form its parameter type takes), or, for an integer parameter of a fast-path
 * statement, a primitive {@code long} kept unboxed, so that binding and running a point statement allocates no
 * box (issue 16's zero-allocation statement path). Code that needs objects ({@link #objects()}, {@link #value})
 * gets the long boxed, at the cost of one allocation, which only the Calcite path and the rare fast-path
 * uses (inserts, assignments other than increments) pay.
 */
public final class ParameterValues {
    /** Marks a slot of {@link #objects} whose value is in {@link #longs}. */
    private static final Object IN_LONGS = new Object() {
        @Override
        public String toString() {
            return "(a long parameter)";
        }
    };
    private static final Object[] NONE = {};

    private Object[] objects;
    private long[] longs;

    public ParameterValues() {
        this.objects = NONE;
        this.longs = new long[0];
    }

    /** Values given as objects (the array is used as it is, not copied). */
    public static ParameterValues of(final Object[] values) {
        final ParameterValues p = new ParameterValues();
        p.objects = values;
        return p;
    }

    /** Makes room for {@code n} values, all null; reuses the arrays when they are large enough. */
    public ParameterValues reset(final int n) {
        if (objects.length != n) {
            objects = n == 0 ? NONE : new Object[n];
        } else {
            java.util.Arrays.fill(objects, null);
        }
        if (longs.length < n) {
            longs = new long[n];
        }
        return this;
    }

    public int size() {
        return objects.length;
    }

    public void set(final int i, final Object value) {
        objects[i] = value;
    }

    public void setLong(final int i, final long value) {
        objects[i] = IN_LONGS;
        longs[i] = value;
    }

    /** Whether value {@code i} is a primitive long ({@link #longAt}); false for null and for object values. */
    public boolean isLong(final int i) {
        return objects[i] == IN_LONGS;
    }

    public long longAt(final int i) {
        return longs[i];
    }

    /** Value {@code i} as an object (a long value boxed). */
    public Object value(final int i) {
        final Object o = objects[i];
        return o == IN_LONGS ? Long.valueOf(longs[i]) : o;
    }

    /** All values as objects, for code that takes an array: long values are boxed into the array in place. */
    public Object[] objects() {
        for (int i = 0; i < objects.length; i++) {
            if (objects[i] == IN_LONGS) {
                objects[i] = Long.valueOf(longs[i]);
            }
        }
        return objects;
    }
}
