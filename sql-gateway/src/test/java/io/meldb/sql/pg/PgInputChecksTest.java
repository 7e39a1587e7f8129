package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.server.EmbeddedGateway;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the PostgreSQL front end checks in a message before it does any work, with PostgreSQL 15's answers (taken
 * from a PostgreSQL 15 server with the same bytes): a Bind's parameter count is unsigned (65,535 is 65,535, not -1);
 * text that is not UTF-8 in a Query or Parse is 22021; a parameter number outside 1..65535 is 42P02 at once. After
 * each error the connection goes on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PgInputChecksTest {
    private static EmbeddedGateway db;

    @BeforeAll
    static void start() {
        db = new EmbeddedGateway();
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    /** An ErrorResponse's SQLSTATE and message, or a message type. */
    private record Answer(char type, String sqlState, String message) {
    }

    @Test
    void aBindOf65535ParametersIsCountedAsUnsigned() throws Exception {
        try (Session s = new Session()) {
            s.parse("", "SELECT $1::int + 1");
            final ByteArrayOutputStream body = new ByteArrayOutputStream();
            final DataOutputStream b = new DataOutputStream(body);
            b.writeByte(0); // portal
            b.writeByte(0); // statement
            b.writeShort(0); // parameter formats
            b.writeShort(65_535); // parameter count: 0xFFFF
            for (int i = 0; i < 65_535; i++) {
                b.writeInt(1);
                b.writeByte('1');
            }
            b.writeShort(0); // result formats
            s.send('B', body.toByteArray());
            s.sync();
            final List<Answer> answers = s.untilReady();
            final Answer error = error(answers);
            assertEquals("08P01", error.sqlState(), answers.toString());
            assertEquals("bind message supplies 65535 parameters, but prepared statement \"\" requires 1",
                    error.message());
            s.assertStillWorks();
        }
    }

    @Test
    void aQueryThatIsNotUtf8Is22021AndTheConnectionGoesOn() throws Exception {
        try (Session s = new Session()) {
            s.send('Q', cstring(bytes("SELECT 'a", 0xc3, 0x28, "'")));
            final Answer error = error(s.untilReady());
            assertEquals("22021", error.sqlState());
            assertEquals("invalid byte sequence for encoding \"UTF8\": 0xc3 0x28", error.message());
            s.assertStillWorks();
            // the same bytes again (a shape kept by the first attempt would run them now)
            s.send('Q', cstring(bytes("SELECT 'a", 0xc3, 0x28, "'")));
            assertEquals("22021", error(s.untilReady()).sqlState());
            s.assertStillWorks();
        }
    }

    @Test
    void aParseThatIsNotUtf8Is22021AndTheConnectionGoesOn() throws Exception {
        try (Session s = new Session()) {
            final ByteArrayOutputStream body = new ByteArrayOutputStream();
            body.write(0); // the unnamed statement
            body.writeBytes(cstring(bytes("SELECT 'x", 0xed, 0xa0, 0x80, "'"))); // a UTF-16 surrogate, encoded
            body.write(new byte[] {0, 0}); // no declared types
            s.send('P', body.toByteArray());
            s.sync();
            final Answer error = error(s.untilReady());
            assertEquals("22021", error.sqlState());
            assertEquals("invalid byte sequence for encoding \"UTF8\": 0xed 0xa0 0x80", error.message());
            s.assertStillWorks();
        }
    }

    @Test
    void aParameterNumberOutsideTheLimitIs42P02BeforeAnyWork() throws Exception {
        try (Session s = new Session()) {
            for (String sql : new String[] {"SELECT $100000", "SELECT $65536::int", "SELECT $0::int",
                    "SELECT $99999999999999999999::int"}) {
                final long start = System.nanoTime();
                s.parse("", sql);
                s.sync();
                final Answer error = error(s.untilReady());
                final long took = System.nanoTime() - start;
                assertEquals("42P02", error.sqlState(), sql + ": " + error);
                assertTrue(error.message().startsWith("there is no parameter $"), error.message());
                assertTrue(took < TimeUnit.SECONDS.toNanos(2), sql + " took " + took / 1_000_000 + " ms");
                s.assertStillWorks();
            }
            s.send('Q', cstring("SELECT $100000".getBytes(StandardCharsets.UTF_8)));
            assertEquals("42P02", error(s.untilReady()).sqlState());
            s.assertStillWorks();
        }
    }

    @Test
    void utf8IsCheckedAsPostgresChecksIt() {
        for (byte[] good : new byte[][] {bytes("plain ascii"), bytes("", 0xc3, 0xa9), bytes("", 0xe2, 0x82, 0xac),
                bytes("", 0xf0, 0x9f, 0x98, 0x80), bytes("", 0xf4, 0x8f, 0xbf, 0xbf), bytes("", 0xed, 0x9f, 0xbf)}) {
            PgMessage.checkUtf8(Unpooled.wrappedBuffer(good), 0, good.length);
        }
        assertBad(bytes("a", 0xc3, 0x28), "0xc3 0x28");
        assertBad(bytes("", 0x80), "0x80"); // a continuation byte alone
        assertBad(bytes("", 0xc0, 0x80), "0xc0 0x80"); // overlong NUL
        assertBad(bytes("", 0xe0, 0x80, 0x80), "0xe0 0x80 0x80"); // overlong
        assertBad(bytes("", 0xed, 0xa0, 0x80), "0xed 0xa0 0x80"); // surrogate
        assertBad(bytes("", 0xf4, 0x90, 0x80, 0x80), "0xf4 0x90 0x80 0x80"); // above U+10FFFF
        assertBad(bytes("", 0xff), "0xff");
        assertBad(bytes("ab", 0xe2, 0x82), "0xe2 0x82"); // cut short at the end of the string
    }

    private static void assertBad(final byte[] text, final String named) {
        final ByteBuf b = Unpooled.wrappedBuffer(text);
        final SqlStateException e = assertThrows(SqlStateException.class, () -> PgMessage.checkUtf8(b, 0, text.length));
        assertEquals("22021", e.sqlState());
        assertEquals("invalid byte sequence for encoding \"UTF8\": " + named, e.getMessage());
    }

    private static Answer error(final List<Answer> answers) {
        for (Answer a : answers) {
            if (a.type() == 'E') {
                return a;
            }
        }
        throw new AssertionError("no error in " + answers);
    }

    /** Text and bytes, in order: strings as UTF-8, integers as one byte each. */
    private static byte[] bytes(final Object... parts) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object p : parts) {
            if (p instanceof String s) {
                out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
            } else {
                out.write((Integer) p);
            }
        }
        return out.toByteArray();
    }

    private static byte[] cstring(final byte[] text) {
        final byte[] out = new byte[text.length + 1];
        System.arraycopy(text, 0, out, 0, text.length);
        return out;
    }

    /** A raw protocol 3.0 session with the embedded gateway. */
    private static final class Session implements AutoCloseable {
        final Socket socket;
        final DataOutputStream out;
        final DataInputStream in;

        Session() throws IOException {
            socket = new Socket("127.0.0.1", db.gateway.pgPort());
            socket.setSoTimeout(30_000);
            out = new DataOutputStream(new java.io.BufferedOutputStream(socket.getOutputStream(), 1 << 16));
            in = new DataInputStream(new java.io.BufferedInputStream(socket.getInputStream()));
            final ByteArrayOutputStream body = new ByteArrayOutputStream();
            final DataOutputStream b = new DataOutputStream(body);
            b.writeInt(196_608);
            for (String s : new String[] {"user", "raw", "database", "meldb", ""}) {
                b.write(s.getBytes(StandardCharsets.UTF_8));
                b.writeByte(0);
            }
            out.writeInt(body.size() + 4);
            out.write(body.toByteArray());
            out.flush();
            untilReady();
        }

        void send(final char type, final byte[] body) throws IOException {
            out.writeByte(type);
            out.writeInt(body.length + 4);
            out.write(body);
            out.flush();
        }

        void parse(final String name, final String sql) throws IOException {
            final ByteArrayOutputStream body = new ByteArrayOutputStream();
            body.writeBytes(cstring(name.getBytes(StandardCharsets.UTF_8)));
            body.writeBytes(cstring(sql.getBytes(StandardCharsets.UTF_8)));
            body.write(new byte[] {0, 0});
            send('P', body.toByteArray());
        }

        void sync() throws IOException {
            send('S', new byte[0]);
        }

        List<Answer> untilReady() throws IOException {
            final List<Answer> answers = new ArrayList<>();
            while (true) {
                final char type = (char) in.readByte();
                final byte[] body = new byte[in.readInt() - 4];
                in.readFully(body);
                if (type == 'E') {
                    String state = null;
                    String message = null;
                    int i = 0;
                    while (i < body.length && body[i] != 0) {
                        final byte field = body[i++];
                        final int start = i;
                        while (body[i] != 0) {
                            i++;
                        }
                        final String value = new String(body, start, i - start, StandardCharsets.UTF_8);
                        if (field == 'C') {
                            state = value;
                        } else if (field == 'M') {
                            message = value;
                        }
                        i++;
                    }
                    answers.add(new Answer(type, state, message));
                } else {
                    answers.add(new Answer(type, null, null));
                }
                if (type == 'Z') {
                    return answers;
                }
            }
        }

        void assertStillWorks() throws IOException {
            send('Q', cstring("SELECT 41 + 1".getBytes(StandardCharsets.UTF_8)));
            final List<Answer> answers = untilReady();
            assertEquals('T', answers.get(0).type(), answers.toString());
            assertEquals('D', answers.get(1).type(), answers.toString());
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
