package io.meldb.txn.rpc;

import io.meldb.txn.client.TxnRpcClient;
import io.meldb.txn.client.TxnRpcClientOptions;
import io.meldb.txn.protocol.TxnRpcProtocol;
import io.meldb.wire.FrameFormat;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.function.Executable;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Shared plumbing of the RPC tests: a server over an {@link InMemoryTxnService} on a free loopback port, clients,
 * a raw socket that speaks (or breaks) the protocol by hand, and cleanup of everything a test started, in reverse
 * order, even when the test fails.
 */
abstract class RpcTestSupport {
    private final Deque<AutoCloseable> started = new ArrayDeque<>();
    protected final InMemoryTxnService service = new InMemoryTxnService();

    protected <T extends AutoCloseable> T closeAfter(T resource) {
        started.push(resource);
        return resource;
    }

    @AfterEach
    void closeEverything() throws Exception {
        Exception first = null;
        while (!started.isEmpty()) {
            try {
                started.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    protected TxnRpcServer startServer() {
        return startServer(new TxnRpcServerOptions());
    }

    protected TxnRpcServer startServer(TxnRpcServerOptions options) {
        return closeAfter(TxnRpcServer.start(service, options.host("127.0.0.1").port(0).ioThreads(2)));
    }

    protected TxnRpcClient connect(TxnRpcServer server) {
        return connect(server, Duration.ofSeconds(10));
    }

    protected TxnRpcClient connect(TxnRpcServer server, Duration requestTimeout) {
        return closeAfter(TxnRpcClient.connect(TxnRpcClientOptions.to("127.0.0.1", server.port())
                .requestTimeout(requestTimeout)));
    }

    protected RawConnection raw(TxnRpcServer server) throws IOException {
        return closeAfter(new RawConnection(server.port()));
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String s(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    static TxnException assertTxnError(TxnError expected, Executable call) {
        TxnException e = assertThrows(TxnException.class, call);
        assertEquals(expected, e.error(), () -> "message: " + e.getMessage());
        return e;
    }

    static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!holds(condition)) {
            if (System.nanoTime() > deadline) {
                fail("not within 5 s: " + what);
            }
            Thread.sleep(5);
        }
    }

    /** A check whose request timed out (short client timeouts on a loaded machine) counts as not yet true. */
    private static boolean holds(BooleanSupplier condition) {
        try {
            return condition.getAsBoolean();
        } catch (TxnException e) {
            if (e.error() == TxnError.TIMEOUT) {
                return false;
            }
            throw e;
        }
    }

    /** One frame read off a raw socket. */
    record RawFrame(byte type, long requestId, byte[] body) {
        TxnError errorCode() {
            assertEquals(TxnRpcProtocol.ERROR, type, "an ERROR frame");
            return TxnError.fromCode(((body[0] & 0xFF) << 8) | (body[1] & 0xFF));
        }

        String errorMessage() {
            return new String(body, 2, body.length - 2, StandardCharsets.UTF_8);
        }
    }

    /** A plain socket to the server, for frames no client would send. */
    static final class RawConnection implements AutoCloseable {
        private final Socket socket;
        private final DataOutputStream out;
        private final DataInputStream in;

        RawConnection(int port) throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(5000);
            out = new DataOutputStream(socket.getOutputStream());
            in = new DataInputStream(socket.getInputStream());
        }

        void writeFrame(byte type, long requestId, byte[] body) throws IOException {
            out.writeInt(FrameFormat.MIN_FRAME_LENGTH + body.length);
            out.writeInt(TxnRpcProtocol.MAGIC);
            out.writeByte(TxnRpcProtocol.VERSION);
            out.writeByte(type);
            out.writeShort(0);
            out.writeLong(requestId);
            out.write(body);
            out.flush();
        }

        void writeRaw(byte[] bytes) throws IOException {
            out.write(bytes);
            out.flush();
        }

        RawFrame readFrame() throws IOException {
            int length = in.readInt();
            assertEquals(TxnRpcProtocol.MAGIC, in.readInt(), "magic");
            assertEquals(TxnRpcProtocol.VERSION, in.readByte(), "version");
            byte type = in.readByte();
            in.readShort();
            long requestId = in.readLong();
            byte[] body = new byte[length - FrameFormat.MIN_FRAME_LENGTH];
            in.readFully(body);
            return new RawFrame(type, requestId, body);
        }

        /** The server closed the connection (end of stream, or reset). */
        void assertClosedByServer() throws IOException {
            try {
                int b = in.read();
                assertEquals(-1, b, "end of stream");
            } catch (EOFException | SocketException e) {
                // reset: closed as well
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    static void assertContains(String haystack, String needle) {
        assertTrue(haystack != null && haystack.contains(needle), () -> "\"" + haystack + "\" should contain \"" + needle + "\"");
    }
}
