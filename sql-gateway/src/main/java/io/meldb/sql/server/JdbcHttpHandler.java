package io.meldb.sql.server;

import org.apache.calcite.avatica.AvaticaSeverity;
import org.apache.calcite.avatica.metrics.noop.NoopMetricsSystem;
import org.apache.calcite.avatica.remote.Handler.HandlerResponse;
import org.apache.calcite.avatica.remote.ProtobufHandler;
import org.apache.calcite.avatica.remote.ProtobufTranslation;
import org.apache.calcite.avatica.remote.ProtobufTranslationImpl;
import org.apache.calcite.avatica.remote.Service;
import org.apache.calcite.avatica.server.AbstractAvaticaHandler;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The JDBC (Avatica protobuf over HTTP) endpoint with what Avatica's own handler lacks: client authentication as
 * on the PostgreSQL port, and bounded requests.
 *
 * <ul>
 *   <li>With users configured, every request carries HTTP Basic credentials of one of them (Avatica's
 *   {@code authentication=BASIC;avatica_user=...;avatica_password=...}, or the {@code user}/{@code password}
 *   properties of MeldDB's driver): none gets 401 with a Basic challenge, wrong ones an Avatica error with SQLSTATE
 *   28P01. Without users, only clients on loopback are served (others get 28000), as on the PostgreSQL port.</li>
 *   <li>A body is read only when it declares its length and that is at most the limit: larger gets 413, none 411,
 *   each a one-line text answer, and the body is never read.</li>
 *   <li>A body that is not an Avatica protobuf request gets 400 and one line, not a 500 with a stack trace.</li>
 * </ul>
 * Everything else is Avatica's {@link ProtobufHandler}, as with {@code AvaticaProtobufHandler}.
 */
final class JdbcHttpHandler extends AbstractAvaticaHandler {
    private static final Logger LOG = LoggerFactory.getLogger(JdbcHttpHandler.class);

    private final ProtobufTranslation translation = new ProtobufTranslationImpl();
    private final ProtobufHandler pbHandler;
    private final Map<String, byte[]> users;
    private final long maxRequestBytes;
    private final LongAdder refused = new LongAdder();
    private volatile Service.RpcMetadataResponse metadata;

    /** {@code users}: user name to password; empty trusts loopback clients only. */
    JdbcHttpHandler(final Service service, final Map<String, String> users, final long maxRequestBytes) {
        this.pbHandler = new ProtobufHandler(service, translation, NoopMetricsSystem.getInstance());
        this.users = new java.util.HashMap<>();
        users.forEach((u, p) -> this.users.put(u, p.getBytes(StandardCharsets.UTF_8)));
        this.maxRequestBytes = maxRequestBytes;
    }

    /** Requests refused: unauthenticated, too large, or not Avatica's protocol. */
    long refused() {
        return refused.sum();
    }

    @Override
    public org.apache.calcite.avatica.metrics.MetricsSystem getMetrics() {
        return NoopMetricsSystem.getInstance();
    }

    @Override
    public void setServerRpcMetadata(final Service.RpcMetadataResponse metadata) {
        this.metadata = metadata;
        pbHandler.setRpcMetadata(metadata);
    }

    @Override
    public void handle(final String target, final Request baseRequest, final HttpServletRequest request,
                       final HttpServletResponse response) throws IOException {
        baseRequest.setHandled(true);
        if (!"POST".equals(request.getMethod())) {
            text(response, 405, "the JDBC endpoint takes Avatica protobuf requests by POST only");
            return;
        }
        if (!authenticated(request, response)) {
            return;
        }
        final long length = request.getContentLengthLong();
        if (length < 0) {
            text(response, 411, "a request must declare its Content-Length");
            return;
        }
        if (length > maxRequestBytes) {
            response.setHeader(HttpHeader.CONNECTION.asString(), "close");
            text(response, 413, "request of " + length + " bytes exceeds the limit of " + maxRequestBytes
                    + " (--jdbc-max-request-bytes)");
            return;
        }
        final byte[] body;
        try (InputStream in = request.getInputStream()) {
            body = in.readNBytes((int) length);
        }
        if (body.length != length) {
            text(response, 400, "the request ended after " + body.length + " of its " + length + " bytes");
            return;
        }
        try {
            translation.parseRequest(body);
        } catch (IOException | RuntimeException e) {
            text(response, 400, "not an Avatica protobuf request");
            return;
        }
        final HandlerResponse<byte[]> r = pbHandler.apply(body);
        response.setStatus(r.getStatusCode());
        response.setContentType("application/octet-stream;charset=utf-8");
        response.getOutputStream().write(r.getResponse());
    }

    /** Whether the request may go on; if not, its answer has been written. */
    private boolean authenticated(final HttpServletRequest request, final HttpServletResponse response)
            throws IOException {
        if (users.isEmpty()) {
            if (fromLoopback(request)) {
                return true;
            }
            refuse(request, response, "28000", "MeldDB trusts only clients on loopback when it has no users; "
                    + "configure users and passwords (--users-file or MELDB_PG_USERS) to connect from "
                    + request.getRemoteAddr());
            return false;
        }
        final String header = request.getHeader(HttpHeader.AUTHORIZATION.asString());
        if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            refused.increment();
            response.setHeader(HttpHeader.WWW_AUTHENTICATE.asString(), "Basic realm=\"MeldDB\", charset=\"UTF-8\"");
            text(response, 401, "password authentication is required (user and password properties)");
            return false;
        }
        final String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            refuse(request, response, "28P01", "malformed Basic credentials");
            return false;
        }
        final int colon = decoded.indexOf(':');
        final String user = colon < 0 ? decoded : decoded.substring(0, colon);
        final byte[] given = (colon < 0 ? "" : decoded.substring(colon + 1)).getBytes(StandardCharsets.UTF_8);
        final byte[] expected = users.get(user);
        // compared in constant time, and against something even for an unknown user
        final boolean ok = MessageDigest.isEqual(expected == null ? new byte[given.length + 1] : expected, given)
                && expected != null;
        if (!ok) {
            refuse(request, response, "28P01", "password authentication failed for user \"" + user + "\"");
            return false;
        }
        return true;
    }

    private static boolean fromLoopback(final HttpServletRequest request) {
        try {
            return InetAddress.getByName(request.getRemoteAddr()).isLoopbackAddress();
        } catch (IOException e) {
            return false;
        }
    }

    /** An Avatica error answer, which Avatica's client turns into an SQLException with {@code sqlState}. */
    private void refuse(final HttpServletRequest request, final HttpServletResponse response, final String sqlState,
                        final String message) throws IOException {
        refused.increment();
        LOG.warn("JDBC: refused a request from {}: {}", request.getRemoteAddr(), message);
        final Service.ErrorResponse error = new Service.ErrorResponse(List.of(), message, 0, sqlState,
                AvaticaSeverity.FATAL, metadata);
        response.setStatus(500);
        response.setContentType("application/octet-stream;charset=utf-8");
        response.getOutputStream().write(translation.serializeResponse(error));
    }

    private void text(final HttpServletResponse response, final int status, final String message) throws IOException {
        if (status != 401) {
            refused.increment();
        }
        response.setStatus(status);
        response.setContentType("text/plain;charset=utf-8");
        response.getOutputStream().write((message + "\n").getBytes(StandardCharsets.UTF_8));
        response.flushBuffer(); // sent now, even while an unread body is still on its way
    }
}
