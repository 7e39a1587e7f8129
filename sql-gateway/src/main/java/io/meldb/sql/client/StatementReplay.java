package io.meldb.sql.client;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How to make a JDBC object of a MeldDB-driver connection again on a replacement connection (see
 * {@link ClientSession}): the connection call that made it ({@code prepareStatement(sql, ...)}, {@code getMetaData()},
 * ...), and, for statements, the setters the program called since (fetch size, query timeout, parameters) and the
 * batch it is building, which Avatica keeps on the client and which would otherwise be lost with the old object.
 */
final class StatementReplay {
    private final Method factory;
    private final Object[] factoryArgs;
    /** Setter calls by what they set (a parameter index, or the setter), in the order the program made them. */
    private final Map<Object, Object[]> setters = new LinkedHashMap<>();
    private final List<Object[]> batch = new ArrayList<>();

    StatementReplay(final Method factory, final Object[] factoryArgs) {
        this.factory = factory;
        this.factoryArgs = factoryArgs == null ? null : factoryArgs.clone();
    }

    /** The SQL text the statement was prepared with, or null for a plain statement or metadata. */
    String preparedSql() {
        return factoryArgs != null && factoryArgs.length > 0 && factoryArgs[0] instanceof String sql ? sql : null;
    }

    /** Notes a call the program made successfully on the current object, if a replacement needs it too. */
    void record(final Method method, final Object[] args) {
        final String name = method.getName();
        if (name.equals("clearParameters")) {
            setters.keySet().removeIf(k -> k instanceof Integer || k instanceof String);
        } else if (name.equals("clearBatch") || name.startsWith("executeBatch") || name.startsWith("executeLargeBatch")) {
            batch.clear();
        } else if (name.equals("addBatch")) {
            batch.add(new Object[] {method, args == null ? null : args.clone()});
        } else if (name.startsWith("set") && method.getReturnType() == void.class && args != null) {
            final Class<?> declaring = method.getDeclaringClass();
            final boolean parameter = (declaring == PreparedStatement.class || declaring == CallableStatement.class)
                    && args.length > 0 && (args[0] instanceof Integer || args[0] instanceof String);
            // a parameter by its index (or name); any other setter by itself
            setters.put(parameter ? args[0] : method, new Object[] {method, args.clone()});
        }
    }

    /** Makes the object again on {@code connection} and repeats the recorded calls on it. */
    Object recreate(final Connection connection) throws Throwable {
        final Object fresh = invoke(connection, factory, factoryArgs);
        for (Object[] call : setters.values()) {
            invoke(fresh, (Method) call[0], (Object[]) call[1]);
        }
        for (Object[] call : batch) {
            invoke(fresh, (Method) call[0], (Object[]) call[1]);
        }
        return fresh;
    }

    private static Object invoke(final Object target, final Method method, final Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
