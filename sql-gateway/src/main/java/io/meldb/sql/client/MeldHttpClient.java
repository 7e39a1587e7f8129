package io.meldb.sql.client;

import org.apache.calcite.avatica.remote.AuthenticationType;
import org.apache.calcite.avatica.remote.AvaticaHttpClient;
import org.apache.calcite.avatica.remote.UsernamePasswordAuthenticateable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The HTTP client of MeldDB's driver: Avatica's protobuf requests as HTTP/1.1 POSTs over a kept-alive socket
 * ({@link HttpLink}) per JDBC connection (Avatica makes one client per connection, and a connection sends one
 * request at a time; a request sent while another runs, such as a cancel, gets a socket of its own). It
 * replaces Apache HttpClient's pooled client, whose per-request work (a pool lease, a request object, an
 * interceptor chain, a socket timeout set per request) cost the benchmark client about as much CPU as the
 * gateway's whole HTTP layer (docs/perf/sql-txn.md). A request leaves in one write: its header and body together.
 *
 * <p>Answers as Avatica's own client does: 200 and 500 (an Avatica error) return the body, 503 is retried, any other
 * status is an error naming it and the gateway's one-line reason (401's message ends as Avatica's, which
 * {@link ClientErrors} recognises). A kept-alive socket the gateway closed while idle (its idle timeout) is
 * reopened and the request sent again, but only when not one byte of an answer had come back. Authentication: HTTP
 * Basic, sent with every request (the gateway has no challenge round trip to save). Plain HTTP only: the driver
 * keeps Avatica's client for {@code https} URLs.
 */
public final class MeldHttpClient implements AvaticaHttpClient, UsernamePasswordAuthenticateable {
    /** Avatica's defaults for {@code http_connection_timeout} and {@code http_response_timeout}. */
    private static final int CONNECT_TIMEOUT_MS = 180_000;
    private static final int RESPONSE_TIMEOUT_MS = 180_000;
    /** An answer's status line and headers larger than this are not the gateway's. */
    private static final int MAX_HEADER_BYTES = 64 << 10;

    private final String host;
    private final int port;
    private final String path;
    private volatile byte[] headerPrefix;
    /** Idle connections; a request that finds none (another thread's request is running) opens one. */
    private final java.util.ArrayDeque<HttpLink> idle = new java.util.ArrayDeque<>(2);
    /** Requests sent, reconnections included once each (for tests: round trips per JDBC call). */
    private final java.util.concurrent.atomic.AtomicLong requests = new java.util.concurrent.atomic.AtomicLong();

    /**
     * The header that tells the gateway this client puts back the signatures of EXECUTE answers itself
     * ({@link MeldRemoteService}), so the gateway may leave them out.
     */
    public static final String SIGNATURES_HEADER = "X-MeldDB-Execute-Signatures";

    private final boolean restoresSignatures;

    /** A client for Avatica's {@code httpclient_impl}: the answers come whole. */
    public MeldHttpClient(final URL url) {
        this(url, false);
    }

    /** {@code restoresSignatures}: the caller puts back what the gateway leaves out (see {@link MeldRemoteService}). */
    public MeldHttpClient(final URL url, final boolean restoresSignatures) {
        this.restoresSignatures = restoresSignatures;
        if (!"http".equalsIgnoreCase(url.getProtocol())) {
            throw new IllegalArgumentException("MeldDB's HTTP client speaks plain http, not " + url.getProtocol());
        }
        this.host = url.getHost();
        this.port = url.getPort() < 0 ? url.getDefaultPort() : url.getPort();
        this.path = url.getFile().isEmpty() ? "/" : url.getFile();
        this.headerPrefix = prefix(null);
    }

    @Override
    public void setUsernamePassword(final AuthenticationType authType, final String username,
                                                 final String password) {
        if (authType != AuthenticationType.BASIC) {
            throw new IllegalArgumentException("MeldDB's gateway authenticates with BASIC, not " + authType);
        }
        final String token = Base64.getEncoder().encodeToString(
                (username + ":" + password).getBytes(StandardCharsets.UTF_8));
        this.headerPrefix = prefix("Basic " + token);
    }

    private byte[] prefix(final String authorization) {
        final String hostHeader = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return ("POST " + path + " HTTP/1.1\r\nHost: " + hostHeader + ":" + port
                + "\r\nContent-Type: application/octet-stream\r\n"
                + (restoresSignatures ? SIGNATURES_HEADER + ": omit\r\n" : "")
                + (authorization == null ? "" : "Authorization: " + authorization + "\r\n")
                + "Content-Length: ").getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Requests sent so far on this client. */
    public long requests() {
        return requests.get();
    }

    @Override
    public byte[] send(final byte[] request) {
        HttpLink link;
        synchronized (idle) {
            link = idle.pollLast();
        }
        if (link == null) {
            link = new HttpLink(host, port, CONNECT_TIMEOUT_MS, RESPONSE_TIMEOUT_MS, MAX_HEADER_BYTES);
        }
        try {
            final byte[] answer = send(link, request);
            synchronized (idle) {
                idle.addLast(link);
            }
            return answer;
        } catch (RuntimeException e) {
            link.close();
            throw e;
        }
    }

    private byte[] send(final HttpLink link, final byte[] request) {
        while (true) {
            final boolean reused = link.reused();
            final HttpLink.Answer answer;
            try {
                requests.incrementAndGet();
                answer = link.exchange(headerPrefix, request);
            } catch (HttpLink.StaleConnection e) {
                link.close();
                if (reused) {
                    continue; // the gateway closed the idle socket before it read the request: send it again
                }
                throw new UncheckedIOException(e);
            } catch (IOException e) {
                link.close();
                throw new UncheckedIOException("cannot reach the MeldDB gateway at " + host + ":" + port, e);
            }
            if (answer.status() == 200 || answer.status() == 500) {
                return answer.body();
            }
            if (answer.status() == 503) {
                continue; // as Avatica's client: the gateway is not ready yet
            }
            final String reason = new String(answer.body(), StandardCharsets.UTF_8).trim();
            throw new RuntimeException("the MeldDB gateway answered HTTP/" + answer.status()
                    + (reason.isEmpty() || reason.length() > 300 ? "" : ": " + reason)
                    + ": Failed to execute HTTP Request, got HTTP/" + answer.status());
        }
    }

    /** Closes the idle connections (one in use closes when its request ends badly, or with the gateway's idle timeout). */
    public void close() {
        synchronized (idle) {
            for (HttpLink l : idle) {
                l.close();
            }
            idle.clear();
        }
    }
}
