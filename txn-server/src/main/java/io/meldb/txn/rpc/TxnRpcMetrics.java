package io.meldb.txn.rpc;

import io.meldb.txn.protocol.TxnRpcProtocol;
import io.meldb.txn.api.TxnError;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Micrometer meters of a {@link TxnRpcServer}: one timer {@code meldb.txn.rpc.requests} tagged with the op (BEGIN,
 * GET, ..., or FRAME for frames that never became a request) and the outcome ({@code OK} or the
 * {@link TxnError} name), so its count is requests by op and error code and its histogram the latency from frame
 * decoded to answer written; plus gauges of open connections and transactions. Without a registry every call is a
 * no-op.
 */
final class TxnRpcMetrics {
    static final String REQUESTS = "meldb.txn.rpc.requests";
    private static final int OPS = TxnRpcProtocol.MAX_REQUEST_TYPE + 1;
    private static final int OUTCOMES = TxnError.values().length + 1;

    private final MeterRegistry registry;
    /** [op][outcome], created on first use (the registry hands back the same timer if two threads race). */
    private final AtomicReferenceArray<Timer> timers = new AtomicReferenceArray<>(OPS * OUTCOMES);

    TxnRpcMetrics(MeterRegistry registry, TxnRpcServer server) {
        this.registry = registry;
        if (registry != null) {
            Gauge.builder("meldb.txn.rpc.connections", server, TxnRpcServer::connectionCount)
                    .description("open client connections").register(registry);
            FunctionCounter.builder("meldb.txn.rpc.connections.refused", server, TxnRpcServer::connectionsRefused)
                    .description("connections refused by the cluster handshake").register(registry);
            FunctionCounter.builder("meldb.txn.rpc.connections.idle.closed", server, TxnRpcServer::connectionsClosedIdle)
                    .description("connections closed after the idle timeout").register(registry);
            Gauge.builder("meldb.txn.rpc.inflight.frame.bytes", server, TxnRpcServer::inflightFrameBytes)
                    .description("bytes of partly received large frames held, all connections together").register(registry);
            FunctionCounter.builder("meldb.txn.rpc.frame.budget.waits", server, TxnRpcServer::frameBudgetWaits)
                    .description("times a connection waited for room in the in-flight frame budget").register(registry);
            Gauge.builder("meldb.txn.rpc.transactions", server, TxnRpcServer::openTransactions)
                    .description("transactions open, beginning or committing over the RPC").register(registry);
        }
    }

    /** Records one answered request; {@code error} null for success. */
    void record(byte type, TxnError error, long startNanos) {
        if (registry == null) {
            return;
        }
        int op = TxnRpcProtocol.isRequest(type) ? type : 0;
        int outcome = error == null ? 0 : error.ordinal() + 1;
        int index = op * OUTCOMES + outcome;
        Timer t = timers.get(index);
        if (t == null) {
            t = Timer.builder(REQUESTS)
                    .description("transaction RPC requests answered, by op and outcome")
                    .tag("op", op == 0 ? "FRAME" : TxnRpcProtocol.typeName(type))
                    .tag("outcome", error == null ? "OK" : error.name())
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofNanos(10_000))
                    .maximumExpectedValue(Duration.ofSeconds(30))
                    .register(registry);
            timers.set(index, t);
        }
        t.record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
    }
}
