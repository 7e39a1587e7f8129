package io.meldb.sql.calcite;

import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.enumerable.CallImplementor;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.linq4j.tree.Primitive;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelProtoDataType;
import org.apache.calcite.schema.FunctionParameter;
import org.apache.calcite.schema.ImplementableFunction;
import org.apache.calcite.schema.ScalarFunction;
import org.apache.calcite.sql.type.SqlTypeName;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/**
 * A scalar function of the schema tree whose value depends on the connection as well as its arguments (the
 * catalog the statement's transaction sees, the session): generated code calls a public static method with the
 * statement's {@link DataContext} first, then the arguments, each converted to the method's parameter type (an
 * {@code Object} parameter takes the value boxed, so an int2 or an int8 argument reaches an oid parameter alike).
 * The SQL types of the parameters are declared here; the result type is the method's (String: text, Boolean:
 * boolean, Integer: integer, Long or long: bigint, a List of strings: text[]), nullable unless the method returns a
 * primitive (PostgreSQL's catalog functions answer NULL for an object that does not exist), or one given
 * explicitly ({@link #returning}: PostgreSQL's name, {@link PgNameType}). The call is never
 * folded into a constant: it reads the context. The catalog functions ({@code PgCatalogFunctions}) and the
 * sequence functions ({@link SequenceFunction}) are such functions.
 */
public class ContextFunction implements ScalarFunction, ImplementableFunction {
    private final Method method;
    private final List<SqlTypeName> parameters;
    /** The result type when the method's return type does not say it (PostgreSQL's name), or null. */
    private final RelProtoDataType returnType;

    protected ContextFunction(final Class<?> owner, final String name, final SqlTypeName... parameters) {
        this(method(owner, name, parameters.length), List.of(parameters), null);
    }

    private ContextFunction(final Method method, final List<SqlTypeName> parameters,
                            final RelProtoDataType returnType) {
        this.method = method;
        this.parameters = parameters;
        this.returnType = returnType;
    }

    private static Method method(final Class<?> owner, final String name, final int arity) {
        for (Method m : owner.getMethods()) {
            if (m.getName().equals(name) && Modifier.isStatic(m.getModifiers())
                    && m.getParameterCount() == arity + 1 && m.getParameterTypes()[0] == DataContext.class) {
                return m;
            }
        }
        throw new IllegalArgumentException("no public static " + owner.getSimpleName() + "." + name
                + "(DataContext and " + arity + " more)");
    }

    /**
     * The function {@code owner.name(DataContext, ...)} with parameters of the SQL types given; the method must be
     * public and static and take a {@link DataContext} and one value per parameter.
     */
    public static ContextFunction of(final Class<?> owner, final String name, final SqlTypeName... parameters) {
        return new ContextFunction(method(owner, name, parameters.length), List.of(parameters), null);
    }

    /**
     * {@link #of}, answering values of {@code returnType} (a type the method's Java return type cannot tell, such
     * as PostgreSQL's name, {@link PgNameType}).
     */
    public static ContextFunction returning(final RelProtoDataType returnType, final Class<?> owner,
                                            final String name, final SqlTypeName... parameters) {
        return new ContextFunction(method(owner, name, parameters.length), List.of(parameters), returnType);
    }

    @Override
    public RelDataType getReturnType(final RelDataTypeFactory typeFactory) {
        if (returnType != null) {
            return returnType.apply(typeFactory);
        }
        final Class<?> r = method.getReturnType();
        if (java.util.List.class.isAssignableFrom(r)) {
            // a list of names: an array of text (name[] in PostgreSQL)
            return typeFactory.createTypeWithNullability(typeFactory.createArrayType(
                    typeFactory.createSqlType(SqlTypeName.VARCHAR), -1), true);
        }
        final SqlTypeName type = r == Boolean.class || r == boolean.class ? SqlTypeName.BOOLEAN
                : r == Integer.class || r == int.class ? SqlTypeName.INTEGER
                : r == Long.class || r == long.class ? SqlTypeName.BIGINT : SqlTypeName.VARCHAR;
        return typeFactory.createTypeWithNullability(typeFactory.createSqlType(type), !r.isPrimitive());
    }

    @Override
    public List<FunctionParameter> getParameters() {
        final List<FunctionParameter> out = new ArrayList<>();
        for (int i = 0; i < parameters.size(); i++) {
            out.add(parameter(i, parameters.get(i)));
        }
        return out;
    }

    /** Parameter {@code ordinal} of a schema function: a nullable value of {@code type}, never optional. */
    static FunctionParameter parameter(final int ordinal, final SqlTypeName type) {
        return new FunctionParameter() {
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
                return typeFactory.createTypeWithNullability(typeFactory.createSqlType(type), true);
            }

            @Override
            public boolean isOptional() {
                return false;
            }
        };
    }

    @Override
    public CallImplementor getImplementor() {
        return (translator, call, nullAs) -> {
            final List<Expression> args = new ArrayList<>();
            args.add(DataContext.ROOT);
            final Class<?>[] types = method.getParameterTypes();
            final List<Expression> operands = translator.translateList(call.getOperands());
            for (int i = 0; i < operands.size(); i++) {
                final Expression operand = operands.get(i);
                if (types[i + 1] == Object.class) {
                    final Expression boxed = Primitive.is(operand.getType()) ? Expressions.box(operand) : operand;
                    args.add(Expressions.convert_(boxed, Object.class));
                } else {
                    args.add(Expressions.convert_(operand, types[i + 1]));
                }
            }
            return Expressions.call(method, args);
        };
    }
}
