package io.meldb.sql.pg;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * pgbench -M simple's transaction on the wire: every statement its own Query, the kept ones running on the I/O
 * thread ({@link PgShapeCache}) and END committing without a thread waiting ({@link PgExecutor#runSimple}). Each
 * Query must be answered in order with its own values and the right ReadyForQuery status ('T' inside the block, 'I'
 * after END), also when the client sends several Queries before reading; a COMMIT that meld refuses answers 40001
 * and 'I', and the session goes on.
 */
@Timeout(60)
class PgKeptQueryTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() throws SQLException {
        db = new EmbeddedGateway();
        try (Connection c = db.connectPg(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE kq_accounts (aid INTEGER PRIMARY KEY, abalance INTEGER NOT NULL)");
            s.execute("CREATE TABLE kq_history (aid INTEGER, delta INTEGER, mtime TIMESTAMP)");
            s.execute("INSERT INTO kq_accounts VALUES (1, 0), (2, 0), (3, 100)");
        }
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    @Test
    void pgbenchsTransactionAnswersEveryQueryInOrderAlsoWhenPipelined() throws IOException {
        try (Wire w = new Wire()) {
            for (int round = 0; round < 30; round++) {
                final int delta = round % 2 == 0 ? 7 * round : -3 * round;
                final String[] script = {
                    "BEGIN;",
                    "UPDATE kq_accounts SET abalance = abalance + " + delta + " WHERE aid = 1;",
                    "SELECT abalance FROM kq_accounts WHERE aid = 1;",
                    "INSERT INTO kq_history (aid, delta, mtime) VALUES (1, " + delta + ", CURRENT_TIMESTAMP);",
                    "END;",
                };
                final boolean pipelined = round % 3 == 0;
                if (pipelined) {
                    for (String q : script) {
                        w.send(q);
                    }
                }
                final List<List<String>> answers = new ArrayList<>();
                for (String q : script) {
                    if (!pipelined) {
                        w.send(q);
                    }
                    answers.add(w.answer());
                }
                final int balance = w.balance;
                w.balance += delta;
                assertEquals(List.of(
                    List.of("C BEGIN", "Z T"),
                    List.of("C UPDATE 1", "Z T"),
                    List.of("T abalance", "D " + (balance + delta), "C SELECT 1", "Z T"),
                    List.of("C INSERT 0 1", "Z T"),
                    List.of("C COMMIT", "Z I")), answers, "round " + round);
            }
            w.send("SELECT count(*) FROM kq_history WHERE aid = 1");
            assertEquals(List.of("T count", "D 30", "C SELECT 1", "Z I"), w.answer());
        }
    }

    @Test
    void aCommitThatMeldRefusesAnswers40001AndTheSessionGoesOn() throws IOException {
        try (Wire a = new Wire(); Wire b = new Wire()) {
            for (Wire w : new Wire[] {a, b}) {
                w.send("BEGIN;");
                assertEquals(List.of("C BEGIN", "Z T"), w.answer());
                w.send("SELECT abalance FROM kq_accounts WHERE aid = 3;");
                assertEquals(List.of("T abalance", "D 100", "C SELECT 1", "Z T"), w.answer());
                w.send("UPDATE kq_accounts SET abalance = 200 WHERE aid = 3;");
                assertEquals(List.of("C UPDATE 1", "Z T"), w.answer());
            }
            a.send("END;");
            assertEquals(List.of("C COMMIT", "Z I"), a.answer());
            b.send("END;");
            assertEquals(List.of("E 40001", "Z I"), b.answer());
            b.send("SELECT abalance FROM kq_accounts WHERE aid = 3;");
            assertEquals(List.of("T abalance", "D 200", "C SELECT 1", "Z I"), b.answer());
            // an END with no block open is a warning and 'I', as in PostgreSQL
            b.send("END;");
            assertEquals(List.of("N 25P01", "C COMMIT", "Z I"), b.answer());
        }
    }

    /** One raw protocol connection: Queries out, each answer summarised ("C tag", "D first value", "E sqlstate"). */
    private static final class Wire implements AutoCloseable {
        private final Socket socket;
        private final DataOutputStream out;
        private final DataInputStream in;
        int balance;

        Wire() throws IOException {
            socket = new Socket("127.0.0.1", db.gateway.pgPort());
            socket.setSoTimeout(30_000);
            socket.setTcpNoDelay(true);
            out = new DataOutputStream(new java.io.BufferedOutputStream(socket.getOutputStream()));
            in = new DataInputStream(socket.getInputStream());
            final ByteArrayOutputStream body = new ByteArrayOutputStream();
            final DataOutputStream b = new DataOutputStream(body);
            b.writeInt(196_608);
            for (String s : new String[] {"user", "kept", "database", "meldb", ""}) {
                b.write(s.getBytes(StandardCharsets.UTF_8));
                b.writeByte(0);
            }
            out.writeInt(body.size() + 4);
            out.write(body.toByteArray());
            out.flush();
            answer(); // authentication, parameters, ReadyForQuery
        }

        void send(final String sql) throws IOException {
            final byte[] text = sql.getBytes(StandardCharsets.UTF_8);
            out.writeByte('Q');
            out.writeInt(4 + text.length + 1);
            out.write(text);
            out.writeByte(0);
            out.flush();
        }

        /** The messages up to and including the next ReadyForQuery. */
        List<String> answer() throws IOException {
            final List<String> got = new ArrayList<>();
            while (true) {
                final byte type = in.readByte();
                final byte[] body = new byte[in.readInt() - 4];
                in.readFully(body);
                switch (type) {
                    case 'Z' -> {
                        got.add("Z " + (char) body[0]);
                        return got;
                    }
                    case 'C' -> got.add("C " + new String(body, 0, body.length - 1, StandardCharsets.UTF_8));
                    case 'T' -> got.add("T " + cString(body, 2));
                    case 'D' -> {
                        final int length = ((body[2] & 0xff) << 24) | ((body[3] & 0xff) << 16)
                                | ((body[4] & 0xff) << 8) | (body[5] & 0xff);
                        got.add("D " + new String(body, 6, length, StandardCharsets.UTF_8));
                    }
                    case 'E', 'N' -> got.add((char) type + " " + field(body, 'C'));
                    default -> {
                        // authentication, ParameterStatus, BackendKeyData: not part of a Query's answer
                    }
                }
            }
        }

        private static String cString(final byte[] body, final int from) {
            int end = from;
            while (body[end] != 0) {
                end++;
            }
            return new String(body, from, end - from, StandardCharsets.UTF_8);
        }

        private static String field(final byte[] body, final char code) {
            int i = 0;
            while (i < body.length && body[i] != 0) {
                final byte f = body[i++];
                final String value = cString(body, i);
                if (f == code) {
                    return value;
                }
                i += value.getBytes(StandardCharsets.UTF_8).length + 1;
            }
            return "";
        }

        @Override
        public void close() throws IOException {
            out.writeByte('X');
            out.writeInt(4);
            out.flush();
            socket.close();
        }
    }
}
