package io.meldb.sql.calcite;

import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.enumerable.CallImplementor;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.FunctionParameter;
import org.apache.calcite.schema.ImplementableFunction;
import org.apache.calcite.schema.ScalarFunction;
import org.apache.calcite.sql.type.SqlTypeName;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL's sequence functions as Calcite functions of the schema tree: {@code nextval(text)},
 * {@code currval(text)}, {@code setval(text, bigint [, boolean])}. The generated code calls {@link SequenceRuntime}
 * with the statement's {@link DataContext}, which leads to the connection's {@link SequenceAccess}; a value is
 * taken each time a row evaluates the call (the call is never folded into a constant: MeldDB's planning program
 * does not reduce expressions, and the call reads the context, so code generation cannot hoist it).
 */
public final class SequenceFunction implements ScalarFunction, ImplementableFunction {
    private final Method method;
    private final List<SqlTypeName> parameters;

    private SequenceFunction(final String runtimeMethod, final SqlTypeName... parameters) {
        this.method = java.util.Arrays.stream(SequenceRuntime.class.getMethods())
                .filter(m -> m.getName().equals(runtimeMethod)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no SequenceRuntime." + runtimeMethod));
        this.parameters = List.of(parameters);
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

    @Override
    public RelDataType getReturnType(final RelDataTypeFactory typeFactory) {
        return typeFactory.createSqlType(SqlTypeName.BIGINT);
    }

    @Override
    public List<FunctionParameter> getParameters() {
        final List<FunctionParameter> out = new ArrayList<>();
        for (int i = 0; i < parameters.size(); i++) {
            final int ordinal = i;
            out.add(new FunctionParameter() {
                @Override
                public int getOrdinal() {
                    return ordinal;
                }

                @Override
                public String getName() {
                    return "arg" + ordinal;
                }

                @Override
                public RelDataType getType(final RelDataTypeFactory typeFactory) {
                    return typeFactory.createSqlType(parameters.get(ordinal));
                }

                @Override
                public boolean isOptional() {
                    return false;
                }
            });
        }
        return out;
    }

    @Override
    public CallImplementor getImplementor() {
        return (translator, call, nullAs) -> {
            final List<Expression> args = new ArrayList<>();
            args.add(DataContext.ROOT);
            final List<Expression> operands = translator.translateList(call.getOperands());
            final Class<?>[] types = method.getParameterTypes();
            for (int i = 0; i < operands.size(); i++) {
                args.add(Expressions.convert_(operands.get(i), types[i + 1]));
            }
            return Expressions.call(method, args);
        };
    }
}
