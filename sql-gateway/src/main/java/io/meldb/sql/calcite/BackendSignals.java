package io.meldb.sql.calcite;

import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.enumerable.CallImplementor;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.Function;
import org.apache.calcite.schema.FunctionParameter;
import org.apache.calcite.schema.ImplementableFunction;
import org.apache.calcite.schema.ScalarFunction;
import org.apache.calcite.sql.type.SqlTypeName;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;

/**
 * PostgreSQL's {@code pg_cancel_backend(pid)} and {@code pg_terminate_backend(pid)} as functions of the schema
 * tree: the generated code calls {@link #cancel}/{@link #terminate} with the statement's {@link DataContext}, which
 * leads to the gateway's {@link Backends}. They answer whether a session had that process id (PostgreSQL answers
 * false, with a warning, for one that is no backend). Any authenticated user may signal any session: MeldDB has
 * no roles to restrict it by.
 */
public final class BackendSignals implements ScalarFunction, ImplementableFunction {
    private final Method method;

    private BackendSignals(final String runtimeMethod) {
        try {
            this.method = BackendSignals.class.getMethod(runtimeMethod, DataContext.class, long.class);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The functions, by the upper-case names unquoted calls reach the schema with ({@link FunctionNames}). */
    static Map<String, Function> functions() {
        return Map.of("PG_CANCEL_BACKEND", new BackendSignals("cancel"),
                "PG_TERMINATE_BACKEND", new BackendSignals("terminate"));
    }

    public static boolean cancel(final DataContext root, final long processId) {
        return backends(root).cancel(processId);
    }

    public static boolean terminate(final DataContext root, final long processId) {
        return backends(root).terminate(processId);
    }

    private static Backends backends(final DataContext root) {
        final MeldRootSchema schema = root.getRootSchema() == null ? null
                : root.getRootSchema().unwrap(MeldRootSchema.class);
        return schema == null ? Backends.NONE : schema.context().backends();
    }

    @Override
    public RelDataType getReturnType(final RelDataTypeFactory typeFactory) {
        return typeFactory.createSqlType(SqlTypeName.BOOLEAN);
    }

    @Override
    public List<FunctionParameter> getParameters() {
        return List.of(new FunctionParameter() {
            @Override
            public int getOrdinal() {
                return 0;
            }

            @Override
            public String getName() {
                return "pid";
            }

            @Override
            public RelDataType getType(final RelDataTypeFactory typeFactory) {
                return typeFactory.createSqlType(SqlTypeName.BIGINT);
            }

            @Override
            public boolean isOptional() {
                return false;
            }
        });
    }

    @Override
    public CallImplementor getImplementor() {
        return (translator, call, nullAs) -> {
            final Expression pid = translator.translateList(call.getOperands()).get(0);
            return Expressions.call(method, DataContext.ROOT, Expressions.convert_(pid, long.class));
        };
    }
}
