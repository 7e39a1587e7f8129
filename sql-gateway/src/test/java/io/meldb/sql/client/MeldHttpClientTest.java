package io.meldb.sql.client;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MeldDB's HTTP client against a scripted HTTP server on loopback: kept-alive sockets, chunked answers, a socket the
 * server closed while idle, and the errors it gives for answers that are not Avatica's.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MeldHttpClientTest {
    private ServerSocket listener;
    private Thread acceptor;
    /** The requests the server saw (header text), in order. */
    private final List<String> seen = new CopyOnWriteArrayList<>();
    /** Requests the server has begun to answer. */
    private final java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
    /** Sockets accepted so far. */
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();

    /** Serves each request on each accepted socket with {@code answer(request index)}; null closes the socket. */
    private URL serve(final Function<Integer, byte[]> answer) throws IOException {
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(() -> {
            while (!listener.isClosed()) {
                try {
                    final Socket s = listener.accept();
                    accepted.add(s);
                    final Thread t = new Thread(() -> serveSocket(s, answer));
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return;
                }
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        return new URL("http://127.0.0.1:" + listener.getLocalPort() + "/");
    }

    private void serveSocket(final Socket s, final Function<Integer, byte[]> answer) {
        try (s) {
            final InputStream in = s.getInputStream();
            final OutputStream out = s.getOutputStream();
            while (true) {
                final String head = readHead(in);
                if (head == null) {
                    return;
                }
                final int length = Integer.parseInt(head.replaceAll("(?s).*Content-Length: (\\d+).*", "$1"));
                in.readNBytes(length);
                final byte[] a = answer.apply(calls.getAndIncrement());
                seen.add(head);
                if (a == null) {
                    return;
                }
                out.write(a);
                out.flush();
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    private static String readHead(final InputStream in) throws IOException {
        final ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            b.write(c);
            if (b.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                return b.toString(StandardCharsets.ISO_8859_1);
            }
        }
        return null;
    }

    private static byte[] ok(final String body) {
        return ("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: " + body.length()
                + "\r\n\r\n" + body).getBytes(StandardCharsets.ISO_8859_1);
    }

    @AfterEach
    void stop() throws IOException {
        if (listener != null) {
            listener.close();
        }
        for (Socket s : accepted) {
            s.close();
        }
    }

    @Test
    void requestsShareOneKeptAliveSocketAndCarryBasicCredentials() throws IOException {
        final MeldHttpClient client = new MeldHttpClient(serve(i -> ok("answer " + i)));
        client.setUsernamePassword(org.apache.calcite.avatica.remote.AuthenticationType.BASIC, "alice", "s3cret");
        for (int i = 0; i < 5; i++) {
            assertArrayEquals(("answer " + i).getBytes(StandardCharsets.ISO_8859_1),
                    client.send(new byte[] {1, 2, 3}));
        }
        assertEquals(1, accepted.size(), "one socket for five requests");
        assertTrue(seen.get(0).contains("Authorization: Basic YWxpY2U6czNjcmV0\r\n"), seen.get(0));
        assertTrue(seen.get(0).startsWith("POST / HTTP/1.1\r\n"), seen.get(0));
        assertEquals(5, client.requests());
        client.close();
    }

    @Test
    void aChunkedAnswerIsReassembledAndTheSocketKept() throws IOException {
        final byte[] chunked = ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "4\r\nmeld\r\n3;ext=1\r\n-db\r\n0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        final MeldHttpClient client = new MeldHttpClient(serve(i -> chunked));
        assertEquals("meld-db", new String(client.send(new byte[0]), StandardCharsets.ISO_8859_1));
        assertEquals("meld-db", new String(client.send(new byte[0]), StandardCharsets.ISO_8859_1));
        assertEquals(1, accepted.size());
        client.close();
    }

    @Test
    void aSocketTheServerClosedWhileIdleIsReopenedAndTheRequestSentAgain() throws IOException {
        // the server answers the first request, then closes that socket without answering the second
        final MeldHttpClient client = new MeldHttpClient(serve(i -> i == 1 ? null : ok("fine " + i)));
        assertEquals("fine 0", new String(client.send(new byte[] {7}), StandardCharsets.ISO_8859_1));
        assertEquals("fine 2", new String(client.send(new byte[] {7}), StandardCharsets.ISO_8859_1));
        assertEquals(2, accepted.size(), "a second socket after the stale one");
        client.close();
    }

    @Test
    void aFreshSocketThatClosesWithoutAnAnswerIsAnErrorNotALoop() throws IOException {
        final MeldHttpClient client = new MeldHttpClient(serve(i -> null));
        final UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> client.send(new byte[] {1}));
        assertTrue(e.getMessage().contains("closed the connection"), e.getMessage());
        assertEquals(1, seen.size(), "sent once");
    }

    @Test
    void anUnauthorizedAnswerSaysSoAsAvaticasClientDoes() throws IOException {
        final byte[] denied = ("HTTP/1.1 401 Unauthorized\r\nContent-Length: 26\r\n\r\npassword auth is required\n")
                .getBytes(StandardCharsets.ISO_8859_1);
        final MeldHttpClient client = new MeldHttpClient(serve(i -> denied));
        final RuntimeException e = assertThrows(RuntimeException.class, () -> client.send(new byte[] {1}));
        assertTrue(e.getMessage().endsWith("got HTTP/401"), e.getMessage());
        assertTrue(e.getMessage().contains("password auth is required"), e.getMessage());
        final Throwable converted = ClientErrors.convert(e);
        assertTrue(converted instanceof java.sql.SQLException s && "28000".equals(s.getSQLState()),
                String.valueOf(converted));
        client.close();
    }

    @Test
    void aRequestWhileAnotherRunsGetsASocketOfItsOwn() throws Exception {
        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        final MeldHttpClient client = new MeldHttpClient(serve(i -> {
            if (i == 0) {
                try {
                    release.await(10, TimeUnit.SECONDS); // the first request hangs until the second is answered
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return ok("r" + i);
        }));
        final List<String> answers = new ArrayList<>();
        final Thread slow = new Thread(() -> answers.add(new String(client.send(new byte[] {1}),
                StandardCharsets.ISO_8859_1)));
        slow.start();
        while (calls.get() == 0) { // the first request is being answered (and hangs)
            Thread.sleep(5);
        }
        final String quick = new String(client.send(new byte[] {2}), StandardCharsets.ISO_8859_1);
        release.countDown();
        slow.join(10_000);
        assertEquals("r1", quick, "answered while the first still ran");
        assertEquals(List.of("r0"), answers);
        assertEquals(2, accepted.size());
        client.close();
    }
}
