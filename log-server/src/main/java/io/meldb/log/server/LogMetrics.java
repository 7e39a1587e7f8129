package io.meldb.log.server;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The Micrometer meters of the log service (Hyder II §5.1; §6.3 measured it in appends/s and latency), scraped as Prometheus text at {@code /metrics}. Appends per second is
 * {@code rate(meldb_log_appends_total[1m])}; the latency timer publishes a histogram, so p99 is
 * {@code histogram_quantile(0.99, rate(meldb_log_append_latency_seconds_bucket[1m]))} (Prometheus exposes no
 * client-side percentiles beside a histogram of the same name).
 */
public final class LogMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Counter appends;
    private final Counter appendBytes;
    private final Timer appendLatency;
    private final Counter blocksRead;
    private final Counter blocksPushed;
    private final Map<ErrorCode, Counter> errors = new EnumMap<>(ErrorCode.class);

    LogMetrics(LogStore store, LogServer server) {
        appends = Counter.builder("meldb.log.appends").description("blocks appended and acknowledged").register(registry);
        appendBytes = Counter.builder("meldb.log.append.bytes").baseUnit("bytes")
                .description("bytes of blocks appended and acknowledged").register(registry);
        appendLatency = Timer.builder("meldb.log.append.latency")
                .description("from an APPEND frame decoded to its answer written, storage and durability included")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(10_000))
                .maximumExpectedValue(Duration.ofSeconds(10))
                .register(registry);
        blocksRead = Counter.builder("meldb.log.read.blocks").description("blocks answered to READ").register(registry);
        blocksPushed = Counter.builder("meldb.log.pushed.blocks").description("blocks pushed to subscribers").register(registry);
        for (ErrorCode code : ErrorCode.values()) {
            errors.put(code, Counter.builder("meldb.log.errors").tag("code", code.name())
                    .description("error answers sent, by error code").register(registry));
        }
        gauge("meldb.log.tail", "next position to be written", store, s -> s.tail());
        gauge("meldb.log.trim.point", "positions below this were trimmed", store, s -> s.trimPoint());
        gauge("meldb.log.disk.free.bytes", "free space on the log's disk (appends are refused below the reserve)", store,
                s -> s.freeSpace());
        gauge("meldb.log.subscribers", "open subscriptions", server, s -> s.subscriberCount());
        gauge("meldb.log.subscriber.lag.max", "blocks the furthest-behind subscriber still has to receive", server,
                s -> s.maxSubscriberLag());
        gauge("meldb.log.connections", "open client connections", server, s -> s.connectionCount());
        gauge("meldb.log.appends.in.store", "appends handed to storage and not yet answered, all connections together",
                server, s -> s.appendsInStore());
        gauge("meldb.log.pending.write.bytes", "answers and pushes written but not yet taken by the clients' sockets",
                server, s -> s.pendingWriteBytes());
        gauge("meldb.log.read.pending", "READ requests and subscription push rounds queued for a read thread", server,
                s -> s.readTasksPending());
        FunctionCounter.builder("meldb.log.connections.refused", server, s -> s.connectionsRefused())
                .description("connections refused by the cluster handshake (no secret, a wrong one, or too slow)")
                .register(registry);
        FunctionCounter.builder("meldb.log.connections.idle.closed", server, s -> s.connectionsClosedIdle())
                .description("connections closed after the idle timeout").register(registry);
        FunctionCounter.builder("meldb.log.trims.refused", server, s -> s.trimsRefused())
                .description("TRIMs refused because they reached above the newest complete checkpoint").register(registry);
    }

    private <T> void gauge(String name, String description, T obj, ToDoubleFunction<T> f) {
        Gauge.builder(name, obj, f).description(description).register(registry);
    }

    void appended(int bytes, long latencyNanos) {
        appends.increment();
        appendBytes.increment(bytes);
        appendLatency.record(latencyNanos, TimeUnit.NANOSECONDS);
    }

    void read(int blocks) {
        blocksRead.increment(blocks);
    }

    void pushed(int blocks) {
        blocksPushed.increment(blocks);
    }

    void error(ErrorCode code) {
        errors.get(code).increment();
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    public String scrape() {
        return registry.scrape();
    }

    public Timer appendLatency() {
        return appendLatency;
    }

    public double errorCount(ErrorCode code) {
        return errors.get(code).count();
    }
}
