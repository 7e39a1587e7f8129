package io.meldb.sql.client;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The JDBC objects that {@link MeldDriver} hands out: a dynamic proxy around Avatica's connection and everything
 * reached from it (statements, result sets, database metadata), which passes every call through and turns what
 * Avatica throws into SQLExceptions (see {@link ClientErrors}). Objects reached through a proxy are proxies too,
 * and {@code getConnection()} / {@code getStatement()} answer the proxy the program holds, never Avatica's object.
 * {@code setAutoCommit(true)} reaches the server at once (Avatica would defer it to the next request), so that the
 * commit it implies happens, or fails, in that call. Database metadata tells what MeldDB supports where Avatica's
 * client answers for itself (transactions, isolation levels). {@code Statement.cancel} and query timeouts reach
 * the gateway ({@link StatementCancels}).
 */
final class JdbcProxy implements InvocationHandler {
    private final Object target;
    private final Class<?> type;
    /** The proxy this object came from: the connection for statements and metadata, the statement for results. */
    private final Object parent;
    /** The proxied connection everything hangs off. */
    private Object connection;

    private JdbcProxy(final Object target, final Class<?> type, final Object parent, final Object connection) {
        this.target = target;
        this.type = type;
        this.parent = parent;
        this.connection = connection;
    }

    /** The connection proxy. */
    static Connection connection(final Connection target) {
        final JdbcProxy handler = new JdbcProxy(target, Connection.class, null, null);
        final Connection proxy = (Connection) newProxy(Connection.class, handler);
        handler.connection = proxy;
        return proxy;
    }

    private static Object newProxy(final Class<?> type, final JdbcProxy handler) {
        return Proxy.newProxyInstance(JdbcProxy.class.getClassLoader(), new Class<?>[] {type}, handler);
    }

    @Override
    public Object invoke(final Object proxy, final Method method, final Object[] args) throws Throwable {
        switch (method.getName()) {
            case "equals":
                if (method.getParameterCount() == 1 && method.getParameterTypes()[0] == Object.class) {
                    return proxy == args[0];
                }
                break;
            case "hashCode":
                if (method.getParameterCount() == 0) {
                    return System.identityHashCode(proxy);
                }
                break;
            case "unwrap":
                if (args != null && args.length == 1 && args[0] instanceof Class<?> iface && iface.isInstance(proxy)) {
                    return proxy;
                }
                break;
            case "isWrapperFor":
                if (args != null && args.length == 1 && args[0] instanceof Class<?> iface && iface.isInstance(proxy)) {
                    return true;
                }
                break;
            case "getConnection":
                if (method.getParameterCount() == 0 && method.getReturnType() == Connection.class) {
                    call(method, args); // keeps the "closed" checks of the target
                    return connection;
                }
                break;
            case "getStatement":
                if (method.getParameterCount() == 0 && type == ResultSet.class && parent instanceof Statement) {
                    call(method, args);
                    return parent;
                }
                break;
            case "supportsTransactionIsolationLevel":
                if (type == DatabaseMetaData.class && args != null && args[0] instanceof Integer level) {
                    // Avatica's client says only TRANSACTION_NONE. MeldDB runs SERIALIZABLE as meld's serializable
                    // and the weaker levels as snapshot isolation, stronger than asked, as JDBC allows
                    return level != Connection.TRANSACTION_NONE;
                }
                break;
            case "getDatabaseProductName":
                if (type == DatabaseMetaData.class && method.getParameterCount() == 0) {
                    return io.meldb.sql.MeldVersion.PRODUCT; // Avatica's client names itself
                }
                break;
            case "getDatabaseProductVersion":
                if (type == DatabaseMetaData.class && method.getParameterCount() == 0) {
                    return io.meldb.sql.MeldVersion.VERSION;
                }
                break;
            case "supportsTransactions":
            case "supportsDataDefinitionAndDataManipulationTransactions":
                if (type == DatabaseMetaData.class && method.getParameterCount() == 0) {
                    return true; // DDL is an ordinary transaction on the catalog tree
                }
                break;
            case "setAutoCommit":
                if (type == Connection.class && args != null && Boolean.TRUE.equals(args[0])) {
                    // Avatica only records the change and sends it with the next request, so the commit that
                    // JDBC promises here would happen later (or never, if the connection is closed next):
                    // send it now, so that the commit happens, and fails, here
                    call(method, args);
                    call(Connection.class.getMethod("getAutoCommit"), null);
                    return null;
                }
                break;
            case "cancel":
                if (target instanceof Statement statement && method.getParameterCount() == 0) {
                    // not Avatica's own cancel: it waits for the statement's lock, which the execution holds
                    StatementCancels.send(statement.getConnection());
                    return null;
                }
                break;
            default:
                if (target instanceof Statement statement && method.getName().startsWith("execute")) {
                    return wrap(StatementCancels.withTimeout(statement, () -> call(method, args)), proxy);
                }
                break;
        }
        return wrap(call(method, args), proxy);
    }

    private Object call(final Method method, final Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            final Throwable converted = ClientErrors.convert(e.getCause());
            if (converted instanceof SQLException && !declares(method, SQLException.class)) {
                // a method that may not throw SQLException (none in java.sql, but be safe): leave the original
                throw e.getCause();
            }
            throw converted;
        }
    }

    /** Wraps the JDBC objects a call returns, so that they convert errors too. */
    private Object wrap(final Object value, final Object self) {
        if (value == null || Proxy.isProxyClass(value.getClass())) {
            return value;
        }
        final Class<?> as;
        if (value instanceof CallableStatement) {
            as = CallableStatement.class;
        } else if (value instanceof PreparedStatement) {
            as = PreparedStatement.class;
        } else if (value instanceof Statement) {
            as = Statement.class;
        } else if (value instanceof ResultSet) {
            as = ResultSet.class;
        } else if (value instanceof DatabaseMetaData) {
            as = DatabaseMetaData.class;
        } else {
            return value;
        }
        if (value == target) {
            return self; // fluent calls that answer the object itself
        }
        return newProxy(as, new JdbcProxy(value, as, self, connection));
    }

    private static boolean declares(final Method method, final Class<?> exception) {
        for (Class<?> c : method.getExceptionTypes()) {
            if (c.isAssignableFrom(exception)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "MeldDB " + type.getSimpleName() + " over " + target;
    }
}
