package io.meldb.sql.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The SQL gateway's meters, fed by {@link GatewayConnection} for every front end (JDBC, PostgreSQL):
 * <ul>
 *   <li>{@code meldb.sql.statements{kind}}: latency of each statement by {@link StatementKind}, from its start to
 *       its end, an autocommit write's commit included; {@code meldb.sql.statement.errors{kind}} counts the
 *       failed ones;</li>
 *   <li>{@code meldb.sql.transactions.committed} and {@code meldb.sql.transactions.aborted{reason}}: update and
 *       explicit transactions (an autocommit query's snapshot is not counted). The reason is {@code 40001} for a
 *       meld conflict, {@code rollback} when the client rolled back, {@code disconnect} when it closed the
 *       connection with the transaction open, and otherwise the failure's SQLSTATE class ({@code 23000},
 *       {@code 53000}, ...);</li>
 *   <li>{@code meldb.sql.autocommit.retries}: autocommit statements run again because meld refused their commit
 *       (40001) before anything of them reached the client ({@link AutocommitRetry}); each failed attempt is also
 *       an aborted transaction ({@code reason=40001}) and a failed statement;
 *       {@code meldb.sql.autocommit.retries.exhausted}: those whose 40001 reached the client all the same, the
 *       retries used up;</li>
 *   <li>{@code meldb.sql.connections{protocol}}: open client connections.</li>
 * </ul>
 * The per-statement meters are registered up front and found by the kind's ordinal, so recording a statement is
 * an array read and a timer update.
 */
public final class SqlMetrics {
    /** The protocol tag of connections made through Avatica's JDBC. */
    public static final String JDBC = "jdbc";

    private final MeterRegistry registry;
    private final Timer[] statements;
    private final Counter[] statementErrors;
    private final Counter committed;
    private final Counter conflicts;
    private final Counter rolledBack;
    private final Counter disconnected;
    private final Counter rowsRead;
    private final Counter autocommitRetries;
    private final Counter autocommitRetriesExhausted;
    private final Map<String, Counter> abortedByClass = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> connections = new ConcurrentHashMap<>();

    public SqlMetrics(final MeterRegistry registry) {
        this.registry = registry;
        final StatementKind[] kinds = StatementKind.values();
        statements = new Timer[kinds.length];
        statementErrors = new Counter[kinds.length];
        for (StatementKind k : kinds) {
            final String kind = k.name();
            statements[k.ordinal()] = Timer.builder("meldb.sql.statements").tag("kind", kind)
                    .description("statements from start to end (an autocommit write's commit included)")
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofNanos(100_000))
                    .maximumExpectedValue(Duration.ofSeconds(60))
                    .register(registry);
            statementErrors[k.ordinal()] = Counter.builder("meldb.sql.statement.errors").tag("kind", kind)
                    .description("statements that failed").register(registry);
        }
        committed = Counter.builder("meldb.sql.transactions.committed")
                .description("update and explicit transactions committed").register(registry);
        conflicts = abortedCounter("40001");
        rolledBack = abortedCounter("rollback");
        disconnected = abortedCounter("disconnect");
        rowsRead = Counter.builder("meldb.sql.rows.read")
                .description("rows and index entries that Calcite-planned statements read from snapshots")
                .register(registry);
        autocommitRetries = Counter.builder("meldb.sql.autocommit.retries")
                .description("autocommit statements run again after meld refused their commit (40001) before "
                        + "anything of them reached the client").register(registry);
        autocommitRetriesExhausted = Counter.builder("meldb.sql.autocommit.retries.exhausted")
                .description("autocommit statements whose 40001 reached the client after their retries were used up")
                .register(registry);
        connections(JDBC);
    }

    void retriedAutocommit() {
        autocommitRetries.increment();
    }

    void exhaustedAutocommitRetries() {
        autocommitRetriesExhausted.increment();
    }

    /** Autocommit statements retried so far ({@link AutocommitRetry}). */
    public double autocommitRetries() {
        return autocommitRetries.count();
    }

    /** Autocommit statements whose retries ran out so far. */
    public double autocommitRetriesExhausted() {
        return autocommitRetriesExhausted.count();
    }

    /** Meters nobody reads: for gateways started without an endpoint (tests, benchmarks). */
    public static SqlMetrics unexported() {
        return new SqlMetrics(new SimpleMeterRegistry());
    }

    public MeterRegistry registry() {
        return registry;
    }

    void statement(final StatementKind kind, final long nanos, final boolean failed) {
        statements[kind.ordinal()].record(nanos, TimeUnit.NANOSECONDS);
        if (failed) {
            statementErrors[kind.ordinal()].increment();
        }
    }

    void committed() {
        committed.increment();
    }

    /** A transaction ended by a failure with this SQLSTATE. */
    void aborted(final String sqlState) {
        if (SqlErrors.SERIALIZATION_FAILURE.equals(sqlState)) {
            conflicts.increment();
        } else {
            final String cls = sqlState.length() >= 2 ? sqlState.substring(0, 2) : "XX";
            abortedByClass.computeIfAbsent(cls, c -> abortedCounter(c + "000")).increment();
        }
    }

    void rowsRead(final int n) {
        rowsRead.increment(n);
    }

    /** Rows and index entries read by scans so far. */
    public double rowsRead() {
        return rowsRead.count();
    }

    void rolledBack() {
        rolledBack.increment();
    }

    void disconnected() {
        disconnected.increment();
    }

    void connectionOpened(final String protocol) {
        connections(protocol).incrementAndGet();
    }

    void connectionClosed(final String protocol) {
        connections(protocol).decrementAndGet();
    }

    private Counter abortedCounter(final String reason) {
        return Counter.builder("meldb.sql.transactions.aborted").tag("reason", reason)
                .description("update and explicit transactions that ended without committing, by reason")
                .register(registry);
    }

    private AtomicInteger connections(final String protocol) {
        return connections.computeIfAbsent(protocol, p -> {
            final AtomicInteger open = new AtomicInteger();
            Gauge.builder("meldb.sql.connections", open, AtomicInteger::get).tag("protocol", p)
                    .description("open client connections").register(registry);
            return open;
        });
    }
}
