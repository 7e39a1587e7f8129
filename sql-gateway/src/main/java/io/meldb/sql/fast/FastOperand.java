package io.meldb.sql.fast;

/**
 * A value in a fast-path statement: a literal, fixed when the statement is planned, a parameter, taken from
 * the execution's parameter values ({@code parameter} is 0-based; -1 for a literal), or the clock
 * ({@code CURRENT_TIMESTAMP}/{@code LOCALTIMESTAMP} and {@code CURRENT_DATE}, read at execution in UTC, the time
 * zone of MeldDB's SQL sessions; the value goes into the intention, so meld's decisions never see a clock), or
 * a sequence's next value (a column's {@code nextval} DEFAULT, from the session's gateway-local range), or a random
 * UUID (a {@code gen_random_uuid()} DEFAULT).
 */
record FastOperand(int parameter, Object literal) {
    private static final int NOW = -2;
    private static final int TODAY = -3;
    private static final int NEXTVAL = -4;
    private static final int RANDOM_UUID = -5;

    static FastOperand now() {
        return new FastOperand(NOW, null);
    }

    static FastOperand today() {
        return new FastOperand(TODAY, null);
    }

    /** A version 4 UUID per execution (a {@code gen_random_uuid()} DEFAULT), in MeldDB's UUID text. */
    static FastOperand randomUuid() {
        return new FastOperand(RANDOM_UUID, null);
    }

    /** The next value of the sequence {@code name} (as {@code nextval} takes it), taken at execution. */
    static FastOperand nextval(final String name) {
        return new FastOperand(NEXTVAL, name);
    }

    static FastOperand parameter(final int index) {
        return new FastOperand(index, null);
    }

    static FastOperand literal(final Object value) {
        return new FastOperand(-1, value);
    }

    /** The value, taking sequence values from {@code sequences}. */
    Object value(final ParameterValues parameters, final io.meldb.sql.calcite.SequenceAccess sequences) {
        if (parameter == NEXTVAL) {
            if (sequences == null) {
                throw new io.meldb.sql.SqlStateException("0A000", "sequences are not available here");
            }
            return sequences.nextval((String) literal);
        }
        return value(parameters);
    }

    Object value(final ParameterValues parameters) {
        if (parameter >= 0) {
            return parameters.value(parameter);
        }
        return switch (parameter) {
            case NOW -> System.currentTimeMillis();
            case TODAY -> (int) Math.floorDiv(System.currentTimeMillis(), 86_400_000L);
            case RANDOM_UUID -> java.util.UUID.randomUUID().toString();
            default -> literal;
        };
    }

    /** Whether the value is a parameter bound as a primitive long ({@link ParameterValues#isLong}): no box. */
    boolean isLong(final ParameterValues parameters) {
        return parameter >= 0 && parameters.isLong(parameter);
    }

    /** The value of a parameter for which {@link #isLong} holds. */
    long longValue(final ParameterValues parameters) {
        return parameters.longAt(parameter);
    }
}
