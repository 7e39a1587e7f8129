package io.meldb.sql.calcite;

import org.apache.calcite.sql.type.SqlTypeName;

/**
 * PostgreSQL's sequence functions as Calcite functions of the schema tree: {@code nextval(text)},
 * {@code currval(text)}, {@code setval(text, bigint [, boolean])}. The generated code calls {@link SequenceRuntime}
 * with the statement's {@link org.apache.calcite.DataContext}, which leads to the connection's {@link SequenceAccess}; a value is
 * taken each time a row evaluates the call (the call is never folded into a constant: MeldDB's planning program
 * does not reduce expressions, and the call reads the context, so code generation cannot hoist it).
 */
public final class SequenceFunction extends ContextFunction {
    private SequenceFunction(final String runtimeMethod, final SqlTypeName... parameters) {
        super(SequenceRuntime.class, runtimeMethod, parameters);
    }

    public static SequenceFunction nextval() {
        return new SequenceFunction("nextval", SqlTypeName.VARCHAR);
    }

    public static SequenceFunction currval() {
        return new SequenceFunction("currval", SqlTypeName.VARCHAR);
    }

    public static SequenceFunction setval() {
        return new SequenceFunction("setval", SqlTypeName.VARCHAR, SqlTypeName.BIGINT);
    }

    public static SequenceFunction setvalCalled() {
        return new SequenceFunction("setvalCalled", SqlTypeName.VARCHAR, SqlTypeName.BIGINT, SqlTypeName.BOOLEAN);
    }
}
