package io.meldb.log.client;

import io.meldb.log.LogConnectionException;
import io.meldb.log.LogTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Client failure modes against fake servers: silence becomes a timeout, a dropped connection a connection error. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LogClientTest {

    @Test
    void shouldFailWithATimeoutWhenTheServerNeverAnswers() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             LogClient client = LogClient.connect(LogClientOptions.to("127.0.0.1", silent.getLocalPort())
                     .requestTimeout(Duration.ofMillis(300)))) {
            long start = System.nanoTime();
            CompletableFuture<Long> append = client.append(new byte[8192]);
            CompletionException e = assertThrows(CompletionException.class, append::join);
            LogTimeoutException timeout = assertInstanceOf(LogTimeoutException.class, e.getCause());
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(tookMillis >= 250 && tookMillis < 5000, "timed out after " + tookMillis + " ms");
            assertTrue(timeout.getMessage().contains("APPEND"), timeout.getMessage());
            assertTrue(client.inFlight() == 0, "the timed-out request is forgotten");
        }
    }

    /**
     * A callback on the client's own I/O thread may close the client (say, on a failure it cannot recover from):
     * close() neither throws nor waits for its own thread, and what is still in flight fails as a lost connection.
     */
    @Test
    void closesFromACallbackOnItsOwnThreadAndFailsWhatIsStillInFlight() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            LogClient client = LogClient.connect(LogClientOptions.to("127.0.0.1", silent.getLocalPort())
                    .requestTimeout(Duration.ofMillis(1000)));
            AtomicReference<Throwable> closeFailed = new AtomicReference<>();
            CountDownLatch closed = new CountDownLatch(1);
            CompletableFuture<Long> first = client.append(new byte[8192]);
            first.whenComplete((p, e) -> {
                try {
                    client.close();
                } catch (Throwable t) {
                    closeFailed.set(t);
                }
                closed.countDown();
            });
            Thread.sleep(500);
            CompletableFuture<Long> second = client.append(new byte[8192]);
            assertTrue(closed.await(10, TimeUnit.SECONDS), "the first append timed out and its callback ran");
            assertNull(closeFailed.get(), () -> "close() on the I/O thread threw " + closeFailed.get());
            assertInstanceOf(LogTimeoutException.class, assertThrows(CompletionException.class, first::join).getCause());
            Throwable secondFailure = assertThrows(CompletionException.class, second::join).getCause();
            assertInstanceOf(LogConnectionException.class, secondFailure, () -> "second append: " + secondFailure);
            assertTrue(secondFailure.getMessage().contains("closed"), secondFailure.getMessage());
            assertEquals(0, client.inFlight());
            CompletableFuture<Long> after = client.append(new byte[8192]);
            assertInstanceOf(LogConnectionException.class, assertThrows(CompletionException.class, after::join).getCause());
        }
    }

    /**
     * A server host that dies without closing its connections leaves them half-open: nothing arrives, nothing
     * fails, until the kernel gives up on retransmitting (about 15 minutes). A request left unanswered for the
     * request timeout makes the client abandon the connection and connect again, and a subscription that hears
     * nothing, not even an answer to the TAIL it then asks, does the same.
     */
    @Test
    void abandonsASilentConnectionAndConnectsAgain() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            List<Socket> accepted = new CopyOnWriteArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept()); // and never a byte back
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            acceptor.start();
            try (LogClient client = LogClient.connect(LogClientOptions.to("127.0.0.1", silent.getLocalPort())
                    .requestTimeout(Duration.ofMillis(400)).reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(100)))) {
                waitForAccepted(accepted, 1);
                CompletionException e = assertThrows(CompletionException.class, () -> client.append(new byte[8192]).join());
                assertInstanceOf(LogTimeoutException.class, e.getCause());
                waitForAccepted(accepted, 2); // the client connected again

                try (LogSubscription s = client.subscribe(1, (position, block) -> { })) {
                    waitForAccepted(accepted, 3);
                    // silence: after half the timeout it asks TAIL, after another half it gives up and reconnects
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (s.connectCount() < 2) { // the server side accepts before the client sees the connection
                        assertTrue(System.nanoTime() < deadline, "the subscription connected again");
                        Thread.sleep(10);
                    }
                }
            } finally {
                silent.close();
                acceptor.join(5000);
                for (Socket s : accepted) {
                    s.close();
                }
            }
        }
    }

    private static void waitForAccepted(List<Socket> accepted, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (accepted.size() < n) {
            assertTrue(System.nanoTime() < deadline, "only " + accepted.size() + " connections, expected " + n);
            Thread.sleep(10);
        }
    }

    @Test
    void shouldFailClearlyWhenNoServerListens() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        LogConnectionException e = assertThrows(LogConnectionException.class,
                () -> LogClient.connect(LogClientOptions.to("127.0.0.1", port).connectTimeout(Duration.ofSeconds(2))));
        assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
    }

    @Test
    void shouldFailRequestsInFlightWhenTheConnectionDrops() throws Exception {
        try (ServerSocket dropping = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CountDownLatch received = new CountDownLatch(1);
            Thread server = new Thread(() -> {
                try (Socket s = dropping.accept(); InputStream in = s.getInputStream()) {
                    in.readNBytes(20);
                    received.countDown();
                } catch (IOException ignored) {
                    // the test is over
                }
            });
            server.start();
            try (LogClient client = LogClient.connect(LogClientOptions.to("127.0.0.1", dropping.getLocalPort())
                    .requestTimeout(Duration.ofSeconds(20)))) {
                CompletableFuture<Long> append = client.append(new byte[8192]);
                assertTrue(received.await(10, TimeUnit.SECONDS));
                CompletionException e = assertThrows(CompletionException.class, append::join);
                LogConnectionException lost = assertInstanceOf(LogConnectionException.class, e.getCause());
                assertTrue(lost.getMessage().contains("may or may not have been appended"), lost.getMessage());
            }
            server.join(5000);
        }
    }
}
