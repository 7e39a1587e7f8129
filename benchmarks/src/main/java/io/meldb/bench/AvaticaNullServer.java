package io.meldb.bench;

import io.meldb.sql.jdbc.InlineMeta;
import io.meldb.sql.jdbc.JdbcServer;
import org.apache.calcite.avatica.AvaticaParameter;
import org.apache.calcite.avatica.ColumnMetaData;
import org.apache.calcite.avatica.Meta;
import org.apache.calcite.avatica.MetaImpl;
import org.apache.calcite.avatica.QueryState;
import org.apache.calcite.avatica.proto.Requests;
import org.apache.calcite.avatica.remote.ProtobufMeta;
import org.apache.calcite.avatica.remote.TypedValue;

import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The floor of the SQL benchmark for the JDBC driver, as {@link PgNullServer} is for pgjdbc: MeldDB's own JDBC
 * endpoint ({@link JdbcServer}: Netty, HTTP, Avatica's protobuf, every statement and COMMIT on the I/O thread as
 * a fast-path statement of MeldDB's runs) serving a {@link Meta} that does no database work. Every statement gets
 * a canned answer shaped like the real one: one row (a BIGINT and a 100-character VARCHAR) for a SELECT, one row
 * updated for anything else. Run as target {@code null-avatica} of {@link SqlTxnBenchmark}, with MeldDB's driver as
 * the client, it measures what the driver, the kernel's loopback TCP and the protocol cost on this machine. Not a
 * database: it answers whatever it is sent and keeps no data.
 */
final class AvaticaNullServer implements AutoCloseable {
    private final JdbcServer server;

    AvaticaNullServer() {
        server = new JdbcServer(new NullMeta(), "127.0.0.1", 0, Map.of(), 64 << 20, Duration.ofMinutes(10), 64);
    }

    /** The URL MeldDB's driver connects to. */
    String jdbcUrl() {
        return "jdbc:meldb://127.0.0.1:" + server.port();
    }

    @Override
    public void close() {
        server.close();
    }

    /** Canned answers; the connection properties the client syncs are kept (one set for all, as MetaImpl does). */
    private static final class NullMeta extends MetaImpl implements InlineMeta, ProtobufMeta {
        private static final String PAD = "x".repeat(100);
        private static final List<ColumnMetaData> ROW_COLUMNS = List.of(
                MetaImpl.columnMetaData("balance", 0, Long.class, false),
                MetaImpl.columnMetaData("pad", 1, String.class, true));
        private static final Signature QUERY = Signature.create(ROW_COLUMNS, "", List.of(), CursorFactory.ARRAY,
                StatementType.SELECT);
        private final AtomicInteger statementIds = new AtomicInteger();

        NullMeta() {
            super(null);
        }

        private static boolean isQuery(final String sql) {
            return sql.stripLeading().toLowerCase(Locale.ROOT).startsWith("select");
        }

        private static Signature signatureOf(final String sql) {
            final List<AvaticaParameter> parameters = new ArrayList<>();
            for (int i = 0; i < sql.length(); i++) {
                if (sql.charAt(i) == '?') {
                    parameters.add(new AvaticaParameter(true, 19, 0, Types.BIGINT, "BIGINT", Long.class.getName(),
                            "?" + (parameters.size() + 1)));
                }
            }
            return isQuery(sql)
                    ? Signature.create(ROW_COLUMNS, sql, parameters, CursorFactory.ARRAY, StatementType.SELECT)
                    : Signature.create(List.of(), sql, parameters, CursorFactory.ARRAY, StatementType.UPDATE);
        }

        private static MetaResultSet answer(final StatementHandle h, final Signature signature) {
            if (signature != null && signature.statementType == StatementType.SELECT) {
                final List<Object> rows = new ArrayList<>(1);
                rows.add(new Object[] {1000L, PAD});
                return MetaResultSet.create(h.connectionId, h.id, false, signature, Frame.create(0, true, rows));
            }
            return MetaResultSet.count(h.connectionId, h.id, 1);
        }

        @Override
        public StatementHandle createStatement(final ConnectionHandle ch) {
            return new StatementHandle(ch.id, 2 * statementIds.incrementAndGet(), null);
        }

        @Override
        public void openConnection(final ConnectionHandle ch, final Map<String, String> info) {
        }

        @Override
        public void closeConnection(final ConnectionHandle ch) {
        }

        /**
         * MeldDB's driver executes without the signature (the server is to know its statements), so a statement's
         * id says what it is: odd for a query, even for anything else.
         */
        @Override
        public StatementHandle prepare(final ConnectionHandle ch, final String sql, final long maxRowCount) {
            return new StatementHandle(ch.id, 2 * statementIds.incrementAndGet() + (isQuery(sql) ? 1 : 0),
                    signatureOf(sql));
        }

        @Override
        @SuppressWarnings("deprecation")
        public ExecuteResult prepareAndExecute(final StatementHandle h, final String sql, final long maxRowCount,
                                               final PrepareCallback callback) {
            return prepareAndExecute(h, sql, maxRowCount, -1, callback);
        }

        @Override
        public ExecuteResult prepareAndExecute(final StatementHandle h, final String sql, final long maxRowCount,
                                               final int maxRowsInFirstFrame, final PrepareCallback callback) {
            return new ExecuteResult(List.of(answer(h, signatureOf(sql))));
        }

        @Override
        public ExecuteBatchResult prepareAndExecuteBatch(final StatementHandle h, final List<String> sqlCommands) {
            return new ExecuteBatchResult(ones(sqlCommands.size()));
        }

        @Override
        public ExecuteBatchResult executeBatch(final StatementHandle h, final List<List<TypedValue>> values) {
            return new ExecuteBatchResult(ones(values.size()));
        }

        /** What Avatica's service calls for a batch that came as protobuf (the driver's, always). */
        @Override
        public ExecuteBatchResult executeBatchProtobuf(final StatementHandle h,
                                                       final List<Requests.UpdateBatch> parameterValues) {
            return new ExecuteBatchResult(ones(parameterValues.size()));
        }

        private static long[] ones(final int n) {
            final long[] counts = new long[n];
            java.util.Arrays.fill(counts, 1);
            return counts;
        }

        @Override
        public Frame fetch(final StatementHandle h, final long offset, final int fetchMaxRowCount) {
            return Frame.EMPTY;
        }

        @Override
        @SuppressWarnings("deprecation")
        public ExecuteResult execute(final StatementHandle h, final List<TypedValue> parameterValues,
                                     final long maxRowCount) {
            return execute(h, parameterValues, -1);
        }

        @Override
        public ExecuteResult execute(final StatementHandle h, final List<TypedValue> parameterValues,
                                     final int maxRowsInFirstFrame) {
            return new ExecuteResult(List.of(answer(h, (h.id & 1) == 1 ? QUERY : null)));
        }

        @Override
        public void closeStatement(final StatementHandle h) {
        }

        @Override
        public boolean syncResults(final StatementHandle sh, final QueryState state, final long offset) {
            return false;
        }

        @Override
        public void commit(final ConnectionHandle ch) {
        }

        @Override
        public void rollback(final ConnectionHandle ch) {
        }

        @Override
        public boolean runsWithoutWaiting(final String connectionId, final int statementId) {
            return true;
        }

        @Override
        public boolean commitsWithoutWaiting() {
            return true;
        }

        @Override
        public CompletableFuture<Void> commitAsync(final String connectionId) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public Exception commitError(final Throwable error) {
            return error instanceof Exception e ? e : new RuntimeException(error);
        }
    }
}
