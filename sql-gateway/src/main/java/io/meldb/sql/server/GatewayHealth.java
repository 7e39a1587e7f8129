package io.meldb.sql.server;

import io.meldb.wire.MetricsHttpServer;
import io.meldb.txn.api.ServerStatus;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.client.TxnRpcClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What a gateway's {@code /health} answers: every txn-server it routes to, whether it answers and how far it has
 * melded. UP (200) while at least one of them is up, since the router skips the others; DOWN (503) when none is.
 * A remote server is asked for its status on a thread of this class, all at once, and counts as down when it has
 * not answered within {@link #PROBE_TIMEOUT}, so a hung server cannot hold up the answer for its RPC timeout.
 */
public final class GatewayHealth implements AutoCloseable {
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

    /** One txn-server's part of the answer: whether it is up, and its JSON fields after the address. */
    private record Probe(boolean up, String json) {
    }

    private final TxnRouter router;
    private final ExecutorService probes = Executors.newCachedThreadPool(r -> {
        final Thread t = new Thread(r, "gateway-health-probe");
        t.setDaemon(true);
        return t;
    });

    public GatewayHealth(final TxnRouter router) {
        this.router = router;
    }

    public MetricsHttpServer.Health check() {
        final List<TxnService> services = router.services();
        final List<CompletableFuture<Probe>> answers = new ArrayList<>(services.size());
        for (TxnService s : services) {
            // an in-process server answers at once; a remote one in the background, all within one deadline
            answers.add(s.inProcess() ? CompletableFuture.completedFuture(probe(s))
                    : CompletableFuture.supplyAsync(() -> probe(s), probes));
        }
        final long deadline = System.nanoTime() + PROBE_TIMEOUT.toNanos();
        final StringBuilder servers = new StringBuilder();
        boolean anyUp = false;
        for (int i = 0; i < services.size(); i++) {
            Probe entry;
            try {
                entry = answers.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                entry = down("no answer within " + PROBE_TIMEOUT.toMillis() + " ms");
            } catch (ExecutionException e) {
                entry = down(String.valueOf(e.getCause().getMessage()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                entry = down("interrupted");
            }
            anyUp |= entry.up();
            servers.append(i == 0 ? "" : ",").append("{\"address\":\"")
                    .append(MetricsHttpServer.jsonEscaped(address(services.get(i)))).append("\",").append(entry.json())
                    .append('}');
        }
        return new MetricsHttpServer.Health(anyUp, "{\"status\":\"" + (anyUp ? "UP" : "DOWN")
                + "\",\"seenCsn\":" + router.seenCsn() + ",\"txnServers\":[" + servers + "]}");
    }

    private static Probe probe(final TxnService service) {
        try {
            final ServerStatus s = service.probe();
            return up(s.serverId(), s.csn(), s.inFlight());
        } catch (RuntimeException e) {
            return down(String.valueOf(e.getMessage()));
        }
    }

    private static Probe up(final int serverId, final long csn, final int inFlight) {
        return new Probe(true, "\"status\":\"UP\",\"serverId\":" + serverId + ",\"csn\":" + csn + ",\"inFlight\":" + inFlight);
    }

    private static Probe down(final String why) {
        return new Probe(false, "\"status\":\"DOWN\",\"error\":\"" + MetricsHttpServer.jsonEscaped(why) + "\"");
    }

    private static String address(final TxnService service) {
        if (service instanceof TxnRpcClient c) {
            return c.options().host() + ":" + c.options().port();
        }
        return service.inProcess() ? "in-process" : service.getClass().getSimpleName();
    }

    @Override
    public void close() {
        probes.shutdownNow();
    }
}
