package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.server.SqlSession;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A connection's start-up (PostgreSQL docs, "Start-up"): SSLRequest and GSSENCRequest answered 'N' (no
 * encryption), CancelRequest passed to the server, StartupMessage read, the client authenticated (trusted on
 * loopback when the server has no users; SCRAM-SHA-256 when it has), and the session opened with its
 * ParameterStatus, BackendKeyData and first ReadyForQuery. Errors here are FATAL: the connection closes.
 */
final class PgStartup {
    private static final int SSL_REQUEST = 80_877_103;
    private static final int GSSENC_REQUEST = 80_877_104;
    private static final int CANCEL_REQUEST = 80_877_102;

    private final PgServer server;
    private final Channel channel;
    private final PgOutput output;
    private final PgConnectionHandler handler;
    private final Map<String, String> parameters = new LinkedHashMap<>();
    private PgScram scram;
    private boolean saslStarted;
    private int processId = -1;

    PgStartup(final PgServer server, final Channel channel, final PgOutput output, final PgConnectionHandler handler) {
        this.server = server;
        this.channel = channel;
        this.output = output;
        this.handler = handler;
    }

    int processId() {
        return processId;
    }

    /** Handles one start-up message; answers the connection once the client may send queries, else null. */
    PgConnection handle(final PgMessage m) {
        if (m.type() == PgMessage.STARTUP) {
            return startup(m);
        }
        if (m.type() != 'p' || scram == null) {
            throw fatal(new PgProtocolException("expected a start-up or password message, got '" + (char) m.type()
                    + "'"));
        }
        return password(m);
    }

    private PgConnection startup(final PgMessage m) {
        final int code = m.readInt();
        switch (code) {
            case SSL_REQUEST, GSSENC_REQUEST -> {
                channel.writeAndFlush(channel.alloc().buffer(1).writeByte('N'));
                return null;
            }
            case CANCEL_REQUEST -> {
                server.cancel(m.readInt(), m.readInt());
                channel.close();
                return null;
            }
            default -> {
                if (code >>> 16 != 3) {
                    throw fatal(new SqlStateException("0A000", "unsupported frontend protocol " + (code >>> 16) + "."
                            + (code & 0xFFFF) + ": MeldDB speaks protocol 3.0"));
                }
            }
        }
        while (m.body().isReadable()) {
            final String name = m.readCString();
            if (name.isEmpty()) {
                break;
            }
            parameters.put(name, m.readCString());
        }
        final String user = parameters.get("user");
        if (user == null || user.isEmpty()) {
            throw fatal(new SqlStateException("28000", "no PostgreSQL user name specified in startup packet"));
        }
        processId = server.admit(handler);
        if (processId < 0) {
            throw fatal(new SqlStateException("53300", "sorry, too many clients already"));
        }
        final PgScram.Verifier verifier = server.verifier(user);
        if (verifier == null) {
            if (!fromLoopback()) {
                throw fatal(new SqlStateException("28000", "MeldDB trusts only clients on loopback when it has no "
                        + "users; configure users and passwords (MELDB_PG_USERS) to connect from "
                        + channel.remoteAddress()));
            }
            return open(user);
        }
        scram = new PgScram(verifier, user, server.random());
        PgBackend.authenticationSasl(output.buffer());
        output.flush();
        return null;
    }

    private PgConnection password(final PgMessage m) {
        try {
            if (!saslStarted) {
                final String mechanism = m.readCString();
                if (!mechanism.equals("SCRAM-SHA-256")) {
                    throw new SqlStateException("28000", "client selected an invalid SASL authentication "
                            + "mechanism: " + mechanism);
                }
                final int length = m.readInt();
                final byte[] first = scram.first(utf8(m.readSlice(Math.max(length, 0))));
                saslStarted = true;
                PgBackend.authenticationSaslData(output.buffer(), 11, first);
                output.flush();
                return null;
            }
            final byte[] last = scram.last(utf8(m.body()));
            PgBackend.authenticationSaslData(output.buffer(), 12, last);
            return open(parameters.get("user"));
        } catch (SqlStateException e) {
            throw fatal(e);
        }
    }

    /** Authenticated: opens the session and tells the client it may begin. */
    private PgConnection open(final String user) {
        final PgSettings settings = new PgSettings(user);
        final SqlSession session;
        try {
            for (Map.Entry<String, String> p : startupSettings().entrySet()) {
                settings.set(p.getKey(), p.getValue());
            }
            session = new SqlSession(server.engine(), "pg-" + processId);
        } catch (RuntimeException e) {
            throw fatal(e);
        }
        final PgConnection connection = new PgConnection(channel, output, session, settings, server.timers(),
                processId);
        final ByteBuf out = output.buffer();
        PgBackend.authenticationOk(out);
        for (String name : PgSettings.REPORTED) {
            PgBackend.parameterStatus(out, name, settings.get(name));
        }
        PgBackend.backendKeyData(out, processId, handler.secret());
        try {
            connection.applySearchPath();
        } catch (RuntimeException e) {
            session.close();
            throw fatal(e);
        }
        PgBackend.readyForQuery(out, PgBackend.IDLE);
        output.flush();
        channel.eventLoop().execute(() -> {
            if (channel.pipeline().get(PgServer.STARTUP_TIMEOUT) != null) {
                channel.pipeline().remove(PgServer.STARTUP_TIMEOUT); // an open session may sit idle
            }
        });
        return connection;
    }

    /** The session parameters of the StartupMessage, with those of its "options" ("-c name=value"). */
    private Map<String, String> startupSettings() {
        final Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> p : parameters.entrySet()) {
            switch (p.getKey()) {
                case "user", "database", "replication" -> {
                    // not settings
                }
                case "options" -> {
                    final String[] words = p.getValue().trim().split("\\s+");
                    for (int i = 0; i < words.length; i++) {
                        String w = words[i];
                        if (w.equals("-c") && i + 1 < words.length) {
                            w = words[++i];
                        } else if (w.startsWith("--")) {
                            w = w.substring(2);
                        } else if (w.startsWith("-c")) {
                            w = w.substring(2);
                        } else {
                            continue;
                        }
                        final int eq = w.indexOf('=');
                        if (eq > 0) {
                            out.put(w.substring(0, eq).replace('-', '_'), w.substring(eq + 1));
                        }
                    }
                }
                default -> out.put(p.getKey(), p.getValue());
            }
        }
        return out;
    }

    private boolean fromLoopback() {
        return channel.remoteAddress() instanceof InetSocketAddress a && a.getAddress() != null
                && a.getAddress().isLoopbackAddress();
    }

    private static String utf8(final ByteBuf b) {
        return b.toString(StandardCharsets.UTF_8);
    }

    /** A start-up failure: the handler sends it as a FATAL error and closes the connection. */
    private static PgFatalException fatal(final RuntimeException e) {
        return new PgFatalException(e);
    }
}
