package io.meldb.sql.fast;

/**
 * A value in a fast-path statement: a literal, fixed when the statement is planned, or a parameter, taken from
 * the execution's parameter values ({@code parameter} is 0-based; -1 for a literal).
 */
record FastOperand(int parameter, Object literal) {
    static FastOperand parameter(final int index) {
        return new FastOperand(index, null);
    }

    static FastOperand literal(final Object value) {
        return new FastOperand(-1, value);
    }

    Object value(final Object[] parameters) {
        return parameter < 0 ? literal : parameters[parameter];
    }
}
