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

import io.meldb.sql.client.ClientErrors.Lost;

/**
 * The JDBC objects that {@link MeldDriver} hands out: a dynamic proxy around Avatica's connection and everything
 * reached from it (statements, result sets, database metadata), which passes every call through and turns what
 * Avatica throws into SQLExceptions (see {@link ClientErrors}). Objects reached through a proxy are proxies too,
 * and {@code getConnection()} / {@code getStatement()} answer the proxy the program holds, never Avatica's object.
 * {@code setAutoCommit(true)} reaches the server at once (Avatica would defer it to the next request), so that the
 * commit it implies happens, or fails, in that call. Database metadata tells what MeldDB supports where Avatica's
 * client answers for itself (transactions, isolation levels). {@code Statement.cancel} and query timeouts reach
 * the gateway ({@link StatementCancels}).
 *
 * <p>The connection survives the gateway forgetting it (a gateway restart): a call that the gateway refuses because
 * it does not know the connection or statement was not executed, so the proxy replaces what was forgotten (see
 * {@link ClientSession} and {@link StatementReplay}) and makes the call again, once. Statements and metadata made on
 * a replaced connection make themselves again on first use; result sets cannot, and answer 08003.
 */
final class JdbcProxy implements InvocationHandler {
    private static final Method GET_AUTO_COMMIT;

    static {
        try {
            GET_AUTO_COMMIT = Connection.class.getMethod("getAutoCommit");
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Class<?> type;
    /** The proxy this object came from: the connection for statements and metadata, the statement for results. */
    private final Object parent;
    /** The proxied connection everything hangs off. */
    private Object connection;
    private final ClientSession session;
    /** How to make {@link #target} again on a replacement connection; null for connections and result sets. */
    private final StatementReplay replay;
    /** Avatica's object (for a connection, see {@link ClientSession#current()} instead). */
    private Object target;
    /** The connection generation {@link #target} was made on. */
    private int generation;
    private boolean closed;

    private JdbcProxy(final Object target, final Class<?> type, final Object parent, final Object connection,
                      final ClientSession session, final StatementReplay replay) {
        this.target = target;
        this.type = type;
        this.parent = parent;
        this.connection = connection;
        this.session = session;
        this.replay = replay;
        this.generation = session.generation();
    }

    /** The connection proxy. */
    static Connection connection(final ClientSession session) {
        final JdbcProxy handler = new JdbcProxy(null, Connection.class, null, null, session, null);
        final Connection proxy = (Connection) newProxy(Connection.class, handler);
        handler.connection = proxy;
        return proxy;
    }

    private static Object newProxy(final Class<?> type, final JdbcProxy handler) {
        return Proxy.newProxyInstance(JdbcProxy.class.getClassLoader(), new Class<?>[] {type}, handler);
    }

    @Override
    public Object invoke(final Object proxy, final Method method, final Object[] args) throws Throwable {
        if (type == DatabaseMetaData.class) {
            final Object answer = MetaDataAnswers.answer(method, args);
            if (answer != MetaDataAnswers.ASK_THE_SERVER) {
                return answer;
            }
            if (MetaDataQueries.answers(method)) {
                return MetaDataQueries.run((Connection) connection, method, args);
            }
        }
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
            case "cancel":
                if (target instanceof Statement statement && method.getParameterCount() == 0) {
                    // not Avatica's own cancel: it waits for the statement's lock, which the execution holds
                    StatementCancels.send(statement.getConnection());
                    return null;
                }
                break;
            default:
                if (target instanceof Statement statement && method.getName().startsWith("execute")) {
                    return wrap(StatementCancels.withTimeout(statement, () -> call(method, args)), proxy, method, args);
                }
                break;
        }
        return wrap(call(method, args), proxy, method, args);
    }

    /** Calls {@code method} on Avatica's object, healing a forgotten connection or statement, converting errors. */
    private Object call(final Method method, final Object[] args) throws Throwable {
        try {
            return type == Connection.class ? connectionCall(method, args) : objectCall(method, args);
        } catch (SQLException e) {
            throw ClientErrors.specific(e);
        } catch (Throwable t) {
            final Throwable converted = ClientErrors.convert(t);
            if (converted instanceof SQLException && !declares(method, SQLException.class)) {
                throw t; // a method that may not throw SQLException (none in java.sql, but be safe)
            }
            throw converted;
        }
    }

    private Object connectionCall(final Method method, final Object[] args) throws Throwable {
        final String name = method.getName();
        if (Savepoints.handles(name, args)) {
            return session.savepoints.call(session.current(), name, args);
        }
        final boolean endsTransaction = (name.equals("commit") || name.equals("rollback")) && args == null;
        // Avatica only records setAutoCommit(true) and sends it with the next request, so the commit that JDBC
        // promises here would happen later (or never, if the connection is closed next): send it now, so that the
        // commit happens, and fails, here
        final boolean syncNow = name.equals("setAutoCommit") && Boolean.TRUE.equals(args[0]);
        if (name.equals("commit")) {
            session.checkNotLost(null);
        }
        if (name.equals("close")) {
            session.close();
            try {
                return invokeRaw(session.current(), method, args);
            } catch (Throwable t) {
                if (ClientErrors.lost(t) == Lost.NOTHING) {
                    throw t;
                }
                return null; // the gateway forgot it already
            }
        }
        final int seen = session.generation();
        Object result;
        try {
            result = invokeConnection(method, args, syncNow);
        } catch (Throwable t) {
            if (ClientErrors.lost(t) != Lost.CONNECTION) {
                if (name.equals("commit") && ClientErrors.convert(t) instanceof SQLException e
                        && ClientErrors.CONNECTION_FAILURE.equals(e.getSQLState())) {
                    session.commitUnreached();
                }
                throw t;
            }
            final boolean rollback = name.equals("rollback") && args == null;
            session.reconnect(seen, rollback);
            if (rollback) {
                session.ended(); // what was to be rolled back went with the gateway
                return null;
            }
            result = retried(() -> invokeConnection(method, args, syncNow));
        }
        if (endsTransaction) {
            session.ended();
        } else if (name.startsWith("set") && args != null && args.length == 1) {
            session.setting(name, args[0]);
        }
        return result;
    }

    private Object invokeConnection(final Method method, final Object[] args, final boolean syncNow)
            throws Throwable {
        final Connection c = session.current();
        final Object result = invokeRaw(c, method, args);
        if (syncNow) {
            invokeRaw(c, GET_AUTO_COMMIT, null);
        }
        return result;
    }

    private Object objectCall(final Method method, final Object[] args) throws Throwable {
        final String name = method.getName();
        if (name.equals("close")) {
            closed = true;
        }
        final boolean execute = type != ResultSet.class && type != DatabaseMetaData.class
                && name.startsWith("execute");
        final String sql = !execute ? null
                : args != null && args.length > 0 && args[0] instanceof String text ? text
                : replay == null ? null : replay.preparedSql();
        if (execute) {
            session.checkNotLost(sql);
        }
        Object result;
        try {
            if (replay != null && !closed && generation != session.generation()) {
                remake(); // made on a connection since replaced: make it on the new one first
            }
            result = invokeRaw(target, method, args);
        } catch (Throwable t) {
            final Lost lost = ClientErrors.lost(t);
            if (lost == Lost.NOTHING) {
                if (execute) {
                    session.executed(sql); // it reached the server, and may have started a transaction there
                }
                throw t;
            }
            if (closed) {
                return null; // closing what the gateway forgot already
            }
            if (replay == null) {
                throw ClientErrors.create("the result set was lost: the MeldDB gateway restarted, or it dropped the "
                        + "query's remaining rows; run the query again", ClientErrors.CONNECTION_DOES_NOT_EXIST, 0,
                        t);
            }
            heal(lost);
            result = retried(() -> invokeRaw(target, method, args));
        }
        if (execute) {
            session.executed(sql);
        }
        if (replay != null) {
            replay.record(method, args);
        }
        return result;
    }

    /** Makes {@link #target} again after the gateway said it does not know it (or its connection). */
    private void heal(final Lost lost) throws Throwable {
        if (lost == Lost.STATEMENT) {
            try {
                final Object stale = target;
                remake();
                closeQuietly(stale);
                return;
            } catch (Throwable t) {
                if (ClientErrors.lost(t) != Lost.CONNECTION) {
                    throw t;
                }
            }
        }
        session.reconnect(generation, false);
        remake();
    }

    private void remake() throws Throwable {
        // the generation of the connection tried, even if that fails: a failure then names that connection
        generation = session.generation();
        target = replay.recreate(session.current());
    }

    /** The single retry of a call the gateway did not run: if it forgets again, say so rather than loop. */
    private static Object retried(final Call call) throws Throwable {
        try {
            return call.run();
        } catch (Throwable t) {
            if (ClientErrors.lost(t) == Lost.NOTHING) {
                throw t;
            }
            throw ClientErrors.create("the MeldDB gateway forgot this connection again right after it was "
                    + "reopened; try again", ClientErrors.CONNECTION_FAILURE, 0, t);
        }
    }

    @FunctionalInterface
    private interface Call {
        Object run() throws Throwable;
    }

    private static Object invokeRaw(final Object on, final Method method, final Object[] args) throws Throwable {
        try {
            return method.invoke(on, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static void closeQuietly(final Object o) {
        try {
            if (o instanceof AutoCloseable c) {
                c.close();
            }
        } catch (Exception e) {
            // the gateway has forgotten it; only the client's side is freed
        }
    }

    /** Wraps the JDBC objects a call returns, so that they convert errors (and heal) too. */
    private Object wrap(final Object value, final Object self, final Method method, final Object[] args) {
        if (value == null || Proxy.isProxyClass(value.getClass())) {
            return value;
        }
        if (value == target && !method.getReturnType().isInstance(self)) {
            return value; // getParameterMetaData: Avatica's prepared statement is its own ParameterMetaData
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
        // what the connection makes can be made again on a replacement; result sets cannot
        final StatementReplay again = type == Connection.class && as != ResultSet.class
                ? new StatementReplay(method, args) : null;
        return newProxy(as, new JdbcProxy(value, as, self, connection, session, again));
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
        return "MeldDB " + type.getSimpleName() + " over " + (type == Connection.class ? session.current() : target);
    }
}
