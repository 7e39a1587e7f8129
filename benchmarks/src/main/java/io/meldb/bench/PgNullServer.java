package io.meldb.bench;

import io.meldb.sql.pg.PgFrontendDecoder;
import io.meldb.sql.pg.PgMessage;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The floor of the SQL benchmark: a server that speaks the PostgreSQL protocol v3 as MeldDB's front end does
 * (Netty, the same frame decoder, the same event-loop count and socket options) but does no database work at
 * all. Every statement gets a canned answer shaped like the real one: one row of text columns for a SELECT,
 * {@code UPDATE 1} for an UPDATE, the transaction status byte kept from BEGIN/COMMIT. Run as a target of {@link
 * SqlTxnBenchmark} ({@code null-pg}) it measures what the clients, the kernel's loopback TCP and the protocol
 * cost on this machine, so that a throughput target can be checked against what any server could reach here.
 * Not a database: it answers whatever it is sent and keeps no data.
 */
final class PgNullServer implements AutoCloseable {
    /** Thread name prefix; the benchmark's CPU report groups this server's threads by it. */
    static final String THREAD_PREFIX = "pgnull-io";
    private static final byte[] PAD = "x".repeat(100).getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NUMBER = "1000".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SERIALIZABLE = "serializable".getBytes(StandardCharsets.US_ASCII);

    private final EventLoopGroup loops;
    private final Channel serverChannel;

    PgNullServer() {
        loops = new MultiThreadIoEventLoopGroup(Math.min(2, Runtime.getRuntime().availableProcessors()),
                new DefaultThreadFactory(THREAD_PREFIX, true), NioIoHandler.newFactory());
        serverChannel = new ServerBootstrap().group(loops).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(final SocketChannel ch) {
                        ch.pipeline().addLast(new PgFrontendDecoder(1 << 20), new Session());
                    }
                })
                .bind("127.0.0.1", 0).syncUninterruptibly().channel();
    }

    int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port() + "/null";
    }

    @Override
    public void close() {
        serverChannel.close().syncUninterruptibly();
        loops.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** What a statement's text says about its answer. */
    private record Shape(String tag, int columns, boolean pad, int parameters, int[] parameterTypes, int txn) {
        static final int KEEP = 0;
        static final int OPEN = 1;
        static final int CLOSE = 2;

        static Shape of(final String sql, final int[] declared) {
            final String s = sql.strip().toUpperCase(Locale.ROOT);
            int params = 0;
            for (int i = s.indexOf('$'); i >= 0; i = s.indexOf('$', i + 1)) {
                int j = i + 1;
                int n = 0;
                while (j < s.length() && Character.isDigit(s.charAt(j))) {
                    n = n * 10 + (s.charAt(j++) - '0');
                }
                params = Math.max(params, n);
            }
            final int[] types = new int[params];
            for (int i = 0; i < params; i++) {
                types[i] = i < declared.length && declared[i] != 0 ? declared[i] : 23;
            }
            if (s.startsWith("BEGIN") || s.startsWith("START")) {
                return new Shape("BEGIN", -1, false, params, types, OPEN);
            }
            if (s.startsWith("COMMIT") || s.startsWith("END")) {
                return new Shape("COMMIT", -1, false, params, types, CLOSE);
            }
            if (s.startsWith("ROLLBACK")) {
                return new Shape("ROLLBACK", -1, false, params, types, CLOSE);
            }
            if (s.startsWith("SHOW")) {
                return new Shape("SHOW", 1, false, params, types, KEEP);
            }
            if (s.startsWith("SELECT")) {
                final int from = s.indexOf(" FROM ");
                final String list = from < 0 ? s.substring(6) : s.substring(6, from);
                final int columns = list.split(",").length;
                return new Shape("SELECT 1", columns, list.contains("PAD"), params, types, KEEP);
            }
            final String tag = s.startsWith("UPDATE") ? "UPDATE 1" : s.startsWith("INSERT") ? "INSERT 0 1"
                    : s.startsWith("DELETE") ? "DELETE 1" : s.startsWith("CREATE") ? "CREATE TABLE"
                    : s.startsWith("DROP") ? "DROP TABLE" : s.startsWith("SET") ? "SET" : "SELECT 0";
            return new Shape(tag, -1, false, params, types, KEEP);
        }
    }

    /** One connection: statements and portals by name, the transaction status, canned answers. */
    private static final class Session extends SimpleChannelInboundHandler<PgMessage> {
        private final Map<String, Shape> statements = new HashMap<>();
        private final Map<String, Shape> portals = new HashMap<>();
        private boolean inTransaction;

        Session() {
            super(false);
        }

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final PgMessage m) {
            try {
                final ByteBuf out = ctx.alloc().buffer(256);
                boolean flush = false;
                switch (m.type()) {
                    case PgMessage.STARTUP -> {
                        final int code = m.body().readInt();
                        if (code == 80_877_103 || code == 80_877_104) { // SSLRequest, GSSENCRequest
                            out.writeByte('N');
                        } else {
                            out.writeByte('R').writeInt(8).writeInt(0);
                            parameterStatus(out, "server_version", "15.0");
                            parameterStatus(out, "client_encoding", "UTF8");
                            parameterStatus(out, "DateStyle", "ISO, MDY");
                            parameterStatus(out, "integer_datetimes", "on");
                            parameterStatus(out, "standard_conforming_strings", "on");
                            parameterStatus(out, "TimeZone", "UTC");
                            out.writeByte('K').writeInt(12).writeInt(1).writeInt(1);
                            ready(out);
                        }
                        flush = true;
                    }
                    case 'Q' -> {
                        final Shape shape = Shape.of(m.readCString(), new int[0]);
                        if (shape.columns() > 0) {
                            rowDescription(out, shape);
                            dataRow(out, shape);
                        }
                        complete(out, shape);
                        ready(out);
                        flush = true;
                    }
                    case 'P' -> {
                        final String name = m.readCString();
                        final String sql = m.readCString();
                        final int[] types = new int[m.body().readUnsignedShort()];
                        for (int i = 0; i < types.length; i++) {
                            types[i] = m.body().readInt();
                        }
                        statements.put(name, Shape.of(sql, types));
                        out.writeByte('1').writeInt(4);
                    }
                    case 'B' -> {
                        final String portal = m.readCString();
                        portals.put(portal, statements.get(m.readCString()));
                        out.writeByte('2').writeInt(4);
                    }
                    case 'D' -> {
                        final boolean statement = m.body().readByte() == 'S';
                        final String name = m.readCString();
                        final Shape shape = statement ? statements.get(name) : portals.get(name);
                        if (statement) {
                            out.writeByte('t').writeInt(6 + 4 * shape.parameters()).writeShort(shape.parameters());
                            for (int t : shape.parameterTypes()) {
                                out.writeInt(t);
                            }
                        }
                        if (shape.columns() > 0) {
                            rowDescription(out, shape);
                        } else {
                            out.writeByte('n').writeInt(4);
                        }
                    }
                    case 'E' -> {
                        final Shape shape = portals.get(m.readCString());
                        if (shape.columns() > 0) {
                            dataRow(out, shape);
                        }
                        complete(out, shape);
                    }
                    case 'C' -> out.writeByte('3').writeInt(4);
                    case 'S' -> {
                        ready(out);
                        flush = true;
                    }
                    case 'H' -> flush = true;
                    case 'X' -> {
                        out.release();
                        ctx.close();
                        return;
                    }
                    default -> {
                        // anything else is answered as PostgreSQL answers an unknown message: an error
                        final byte[] text = ("unsupported message " + (char) m.type()).getBytes(StandardCharsets.UTF_8);
                        out.writeByte('E').writeInt(4 + 1 + 6 + 1 + text.length + 1 + 1);
                        out.writeByte('C').writeBytes("08P01".getBytes(StandardCharsets.US_ASCII)).writeByte(0);
                        out.writeByte('M').writeBytes(text).writeByte(0).writeByte(0);
                    }
                }
                if (flush) {
                    ctx.writeAndFlush(out, ctx.voidPromise());
                } else {
                    ctx.write(out, ctx.voidPromise());
                }
            } finally {
                m.release();
            }
        }

        private void complete(final ByteBuf out, final Shape shape) {
            if (shape.txn() == Shape.OPEN) {
                inTransaction = true;
            } else if (shape.txn() == Shape.CLOSE) {
                inTransaction = false;
            }
            final byte[] tag = shape.tag().getBytes(StandardCharsets.US_ASCII);
            out.writeByte('C').writeInt(4 + tag.length + 1).writeBytes(tag).writeByte(0);
        }

        private void ready(final ByteBuf out) {
            out.writeByte('Z').writeInt(5).writeByte(inTransaction ? 'T' : 'I');
        }

        private static void parameterStatus(final ByteBuf out, final String name, final String value) {
            final byte[] n = name.getBytes(StandardCharsets.US_ASCII);
            final byte[] v = value.getBytes(StandardCharsets.US_ASCII);
            out.writeByte('S').writeInt(4 + n.length + 1 + v.length + 1).writeBytes(n).writeByte(0).writeBytes(v)
                    .writeByte(0);
        }

        /** Every column is text (OID 25), so a client asks for no binary results and parses what it reads. */
        private static void rowDescription(final ByteBuf out, final Shape shape) {
            final int start = out.writerIndex();
            out.writeByte('T').writeInt(0).writeShort(shape.columns());
            for (int i = 0; i < shape.columns(); i++) {
                out.writeByte('c').writeByte('0' + i % 10).writeByte(0);
                out.writeInt(0).writeShort(0).writeInt(25).writeShort(-1).writeInt(-1).writeShort(0);
            }
            out.setInt(start + 1, out.writerIndex() - start - 1);
        }

        private static void dataRow(final ByteBuf out, final Shape shape) {
            final int start = out.writerIndex();
            out.writeByte('D').writeInt(0).writeShort(shape.columns());
            for (int i = 0; i < shape.columns(); i++) {
                final byte[] v = shape.tag().equals("SHOW") ? SERIALIZABLE
                        : shape.pad() && i == shape.columns() - 1 ? PAD : NUMBER;
                out.writeInt(v.length).writeBytes(v);
            }
            out.setInt(start + 1, out.writerIndex() - start - 1);
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            ctx.close();
        }
    }
}
