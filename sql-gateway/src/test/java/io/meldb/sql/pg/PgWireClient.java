package io.meldb.sql.pg;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A bare PostgreSQL protocol client for tests that must see what drivers hide: command tags, format codes,
 * PortalSuspended. Each answer up to ReadyForQuery comes back as a transcript, one line per message: {@code T a,b}
 * (RowDescription; {@code T a,b binary} when a column is binary), {@code D 1|x} (DataRow: text values, binary ones
 * in hex, NULL as {@code null}), {@code C tag}, {@code E sqlstate}, {@code n} (NoData), {@code s}
 * (PortalSuspended), {@code 3} (CloseComplete). ParseComplete, BindComplete and notices are left out.
 */
public final class PgWireClient implements AutoCloseable {
    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;

    PgWireClient(final int port) throws IOException {
        this(port, "wire", "meldb");
    }

    /** Connects as {@code user} to {@code database} (a server that trusts loopback connections). */
    PgWireClient(final int port, final String user, final String database) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(30_000);
        out = new DataOutputStream(socket.getOutputStream());
        in = new DataInputStream(socket.getInputStream());
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        final DataOutputStream b = new DataOutputStream(body);
        b.writeInt(196_608);
        for (String s : new String[] {"user", user, "database", database, ""}) {
            cstring(b, s);
        }
        out.writeInt(body.size() + 4);
        out.write(body.toByteArray());
        out.flush();
        readUntilReady();
    }

    /** A simple Query. */
    List<String> query(final String sql) throws IOException {
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        cstring(new DataOutputStream(body), sql);
        send('Q', body.toByteArray());
        out.flush();
        return readUntilReady();
    }

    /** Parse, Bind (text parameters, one result format for all: 0 text, 1 binary), Describe portal, Execute, Sync. */
    List<String> extended(final String sql, final int maxRows, final short format, final String... parameters)
            throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        DataOutputStream b = new DataOutputStream(body);
        cstring(b, "");
        cstring(b, sql);
        b.writeShort(0);
        send('P', body.toByteArray());
        body = new ByteArrayOutputStream();
        b = new DataOutputStream(body);
        cstring(b, "");
        cstring(b, "");
        b.writeShort(0);
        b.writeShort(parameters.length);
        for (String p : parameters) {
            final byte[] v = p.getBytes(StandardCharsets.UTF_8);
            b.writeInt(v.length);
            b.write(v);
        }
        b.writeShort(1);
        b.writeShort(format);
        send('B', body.toByteArray());
        describePortalMessage("");
        executeMessage("", maxRows);
        send('S', new byte[0]);
        out.flush();
        return readUntilReady();
    }

    /** Describe of the portal {@code name} (a SQL cursor's name reaches the cursor), then Sync. */
    List<String> describePortal(final String name) throws IOException {
        describePortalMessage(name);
        send('S', new byte[0]);
        out.flush();
        return readUntilReady();
    }

    /** Execute of the portal {@code name} with a row limit (0: none), then Sync. */
    List<String> execute(final String name, final int maxRows) throws IOException {
        executeMessage(name, maxRows);
        send('S', new byte[0]);
        out.flush();
        return readUntilReady();
    }

    /** Close of the portal {@code name} (a SQL cursor's name reaches the cursor), then Sync. */
    List<String> closePortal(final String name) throws IOException {
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        final DataOutputStream b = new DataOutputStream(body);
        b.writeByte('P');
        cstring(b, name);
        send('C', body.toByteArray());
        send('S', new byte[0]);
        out.flush();
        return readUntilReady();
    }

    private void describePortalMessage(final String name) throws IOException {
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        final DataOutputStream b = new DataOutputStream(body);
        b.writeByte('P');
        cstring(b, name);
        send('D', body.toByteArray());
    }

    private void executeMessage(final String name, final int maxRows) throws IOException {
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        final DataOutputStream b = new DataOutputStream(body);
        cstring(b, name);
        b.writeInt(maxRows);
        send('E', body.toByteArray());
    }

    private void send(final char type, final byte[] body) throws IOException {
        out.writeByte(type);
        out.writeInt(body.length + 4);
        out.write(body);
    }

    private static void cstring(final DataOutputStream b, final String s) throws IOException {
        b.write(s.getBytes(StandardCharsets.UTF_8));
        b.writeByte(0);
    }

    private List<String> readUntilReady() throws IOException {
        final List<String> transcript = new ArrayList<>();
        boolean[] binary = new boolean[0];
        while (true) {
            final byte type = in.readByte();
            final byte[] body = new byte[in.readInt() - 4];
            in.readFully(body);
            final DataInputStream m = new DataInputStream(new java.io.ByteArrayInputStream(body));
            switch (type) {
                case 'Z' -> {
                    return transcript;
                }
                case 'T' -> {
                    final int n = m.readUnsignedShort();
                    final List<String> names = new ArrayList<>();
                    binary = new boolean[n];
                    for (int i = 0; i < n; i++) {
                        names.add(readCString(m));
                        m.skipBytes(4 + 2 + 4 + 2 + 4);
                        binary[i] = m.readShort() == 1;
                    }
                    boolean any = false;
                    for (boolean bin : binary) {
                        any |= bin;
                    }
                    transcript.add("T " + String.join(",", names) + (any ? " binary" : ""));
                }
                case 'D' -> {
                    final int n = m.readUnsignedShort();
                    final List<String> values = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        final int length = m.readInt();
                        if (length < 0) {
                            values.add("null");
                            continue;
                        }
                        final byte[] v = new byte[length];
                        m.readFully(v);
                        values.add(i < binary.length && binary[i] ? HexFormat.of().formatHex(v)
                                : new String(v, StandardCharsets.UTF_8));
                    }
                    transcript.add("D " + String.join("|", values));
                }
                case 'C' -> transcript.add("C " + readCString(m));
                case 'E' -> transcript.add("E " + errorCode(body));
                case 'n' -> transcript.add("n");
                case 's' -> transcript.add("s");
                case '3' -> transcript.add("3");
                default -> {
                    // ParseComplete, BindComplete, CloseComplete, notices, ParameterStatus, BackendKeyData, auth
                }
            }
        }
    }

    private static String readCString(final DataInputStream m) throws IOException {
        final ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = m.readByte(); c != 0; c = m.readByte()) {
            b.write(c);
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    /** The SQLSTATE field (C) of an ErrorResponse's body, or "" when it has none. */
    public static String errorCode(final byte[] body) {
        int i = 0;
        while (i < body.length && body[i] != 0) {
            final byte field = body[i++];
            final int start = i;
            while (body[i] != 0) {
                i++;
            }
            if (field == 'C') {
                return new String(body, start, i - start, StandardCharsets.UTF_8);
            }
            i++;
        }
        return "";
    }

    @Override
    public void close() throws IOException {
        send('X', new byte[0]);
        out.flush();
        socket.close();
    }
}
