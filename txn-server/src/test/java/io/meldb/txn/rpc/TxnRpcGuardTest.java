package io.meldb.txn.rpc;

import io.meldb.txn.client.TxnRpcClient;
import io.meldb.txn.client.TxnRpcClientOptions;
import io.meldb.txn.protocol.TxnRpcProtocol;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.wire.auth.ClusterSecret;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnSession;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Who may use the transaction RPC port and what they can make it hold: the cluster handshake, the idle timeout and
 * the budget of partly received frames, on a real port.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TxnRpcGuardTest extends RpcTestSupport {
    private static final ClusterSecret SECRET = ClusterSecret.of("txn cluster secret");

    private TxnRpcClient client(TxnRpcServer server, ClusterSecret secret) {
        return closeAfter(TxnRpcClient.connect(TxnRpcClientOptions.to("127.0.0.1", server.port())
                .requestTimeout(Duration.ofSeconds(10)).clusterSecret(secret)));
    }

    @Test
    void aClientWithTheClusterSecretIsServed() {
        TxnRpcServer server = startServer(new TxnRpcServerOptions().clusterSecret(SECRET));
        TxnRpcClient client = client(server, ClusterSecret.of("txn cluster secret"));
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false)) {
            t.put(b("k"), b("v"));
            t.commit();
        }
        assertEquals(0, server.connectionsRefused());
    }

    @Test
    void aClientWithoutTheSecretIsRefusedWithAClearError() throws Exception {
        TxnRpcServer server = startServer(new TxnRpcServerOptions().clusterSecret(SECRET));
        TxnRpcClient client = client(server, null);
        TxnException e = assertTxnError(TxnError.UNAVAILABLE, () -> client.begin(IsolationLevel.SNAPSHOT, false));
        assertContains(e.getMessage(), "cluster secret");
        eventually("counted", () -> server.connectionsRefused() == 1);
        assertEquals(0, service.status().inFlight(), "no transaction was begun");
    }

    @Test
    void aClientWithAnotherSecretCannotConnect() throws Exception {
        TxnRpcServer server = startServer(new TxnRpcServerOptions().clusterSecret(SECRET));
        TxnException e = assertThrows(TxnException.class, () -> client(server, ClusterSecret.of("guess")));
        assertEquals(TxnError.UNAVAILABLE, e.error());
        assertContains(e.getMessage(), "cluster secret");
        eventually("counted", () -> server.connectionsRefused() == 1);
    }

    @Test
    void aRawFrameWithoutTheHandshakeIsAnsweredAndClosed() throws IOException {
        TxnRpcServer server = startServer(new TxnRpcServerOptions().clusterSecret(SECRET));
        RawConnection raw = raw(server);
        raw.writeFrame(TxnRpcProtocol.BEGIN, 9, new byte[] {0, 0});
        RawFrame f = raw.readFrame();
        assertEquals(9, f.requestId());
        assertEquals(TxnError.UNAVAILABLE, f.errorCode());
        assertContains(f.errorMessage(), "--cluster-secret-file");
        raw.assertClosedByServer();
    }

    @Test
    void aSilentOrHalfSentConnectionIsClosedButAKeptAliveClientKeepsItsTransaction() throws Exception {
        // keepalives every 0.1 s against a 1.5 s timeout: robust to pauses of a loaded machine
        TxnRpcServer server = startServer(new TxnRpcServerOptions().idleTimeout(Duration.ofMillis(1500)));
        TxnRpcClient client = closeAfter(TxnRpcClient.connect(TxnRpcClientOptions.to("127.0.0.1", server.port())
                .keepaliveInterval(Duration.ofMillis(100))));
        RawConnection raw = raw(server);
        raw.writeRaw(new byte[] {0, 0, 0, 40, 'M', 'T'}); // half a header, then silence
        try (TxnSession t = client.begin(IsolationLevel.SNAPSHOT, false)) {
            t.put(b("k"), b("v"));
            raw.assertClosedByServer();
            Thread.sleep(3000);
            t.commit();
        }
        assertTrue(server.connectionsClosedIdle() >= 1);
    }

    /**
     * 40 connections each sending most of a 15 MiB frame: with a 32 MiB budget the server holds no more than that of
     * partly received frames at once (the others wait, unread), every frame is still answered in the end, and the
     * allocator's memory stays far below the 600 MiB the frames add up to.
     */
    @Test
    void manyLargeFramesAtOnceStayWithinTheBudget() throws Exception {
        long budget = 32L << 20;
        TxnRpcServer server = startServer(new TxnRpcServerOptions().maxInflightFrameBytes(budget));
        int connections = 40;
        int bodyLength = 15 << 20;
        List<Socket> sockets = new ArrayList<>();
        List<Thread> senders = new ArrayList<>();
        AtomicLong answered = new AtomicLong();
        AtomicLong peakReserved = new AtomicLong();
        AtomicLong peakAllocated = new AtomicLong();
        long allocatedBefore = allocated();
        try {
            for (int i = 0; i < connections; i++) {
                Socket s = new Socket("127.0.0.1", server.port());
                s.setSoTimeout(60_000);
                sockets.add(s);
                long id = i + 1;
                Thread t = new Thread(() -> {
                    try {
                        // a PUT for a transaction that does not exist: answered UNKNOWN_TRANSACTION once it has all arrived
                        ByteBuffer header = ByteBuffer.allocate(20 + 8).putInt(16 + 8 + bodyLength)
                                .putInt(TxnRpcProtocol.MAGIC).put(TxnRpcProtocol.VERSION).put(TxnRpcProtocol.PUT)
                                .putShort((short) 0).putLong(id).putLong(12345);
                        OutputStream out = s.getOutputStream();
                        out.write(header.array());
                        byte[] chunk = new byte[1 << 20];
                        for (int sent = 8; sent < bodyLength + 8; sent += chunk.length) {
                            out.write(chunk, 0, Math.min(chunk.length, bodyLength + 8 - sent));
                        }
                        out.flush();
                        RawFrameReader.read(s);
                        answered.incrementAndGet();
                    } catch (IOException e) {
                        // counted as not answered
                    }
                }, "big-frame-" + i);
                t.setDaemon(true);
                senders.add(t);
                t.start();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(75);
            while (answered.get() < connections && System.nanoTime() < deadline) {
                peakReserved.accumulateAndGet(server.inflightFrameBytes(), Math::max);
                peakAllocated.accumulateAndGet(allocated() - allocatedBefore, Math::max);
                Thread.sleep(2);
            }
            assertEquals(connections, answered.get(), "every frame got its answer");
            assertTrue(peakReserved.get() <= budget, "reserved at most the budget: " + peakReserved.get());
            assertTrue(server.frameBudgetWaits() > 0, "connections had to wait");
            assertTrue(peakAllocated.get() < (160L << 20), "allocator grew by " + (peakAllocated.get() >> 20)
                    + " MiB for 600 MiB of frames");
            assertEquals(0, server.inflightFrameBytes(), "all given back");
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
            for (Thread t : senders) {
                t.join(5000);
            }
        }
    }

    private static long allocated() {
        var m = ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric();
        return m.usedDirectMemory() + m.usedHeapMemory();
    }

    /** Reads one frame's worth of bytes (the answer) off a plain socket. */
    private static final class RawFrameReader {
        static void read(Socket s) throws IOException {
            var in = new java.io.DataInputStream(s.getInputStream());
            int length = in.readInt();
            in.readFully(new byte[length]);
        }
    }
}
