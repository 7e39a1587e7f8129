package io.meldb.wire.client;

import io.meldb.wire.Frame;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RpcClientCoreTest {
    private static final RpcProtocol NO_CODEC = new RpcProtocol() {
        @Override
        public ChannelHandler newDecoder() {
            return new ChannelInboundHandlerAdapter();
        }

        @Override
        public ChannelHandler encoder() {
            return new ChannelOutboundHandlerAdapter();
        }

        @Override
        public Frame keepalive(final long requestId) {
            throw new AssertionError("no keepalive expected");
        }
    };

    private static final class Call extends RpcCall {
        Call(final long id, final long deadline) {
            super(id, (byte) 1, deadline);
        }
    }

    private RpcClientCore<Call> core;

    private RpcClientCore<Call> core(final int port, final Duration requestTimeout, final int maxInFlight) {
        core = new RpcClientCore<>(new RpcPeer("the test server", "127.0.0.1", port, 0x54455354, (byte) 1, null,
                Duration.ofSeconds(2), Duration.ZERO), NO_CODEC, null, 1, "rpc-core-test", requestTimeout, maxInFlight);
        return core;
    }

    @AfterEach
    void stop() {
        if (core != null) {
            core.shutdown();
        }
    }

    @Test
    void shouldHandEachCallPastItsDeadlineToTheExpiryExactlyOnceAndSayWhetherItWasSent() throws InterruptedException {
        final RpcClientCore<Call> c = core(1, Duration.ofMillis(50), 0);
        final long now = System.nanoTime();
        final Call overdue = new Call(c.nextRequestId(), now);
        final Call alive = new Call(c.nextRequestId(), now + TimeUnit.MINUTES.toNanos(1));
        assertTrue(c.register(overdue));
        assertTrue(c.register(alive));
        final List<Call> expired = new CopyOnWriteArrayList<>();
        // three sweeps after the one that expired it: had any handed it over again, expired would hold it twice
        final CountDownLatch swept = new CountDownLatch(4);
        c.startSweeper(1, new RpcClientCore.Expiry<>() {
            @Override
            public void expired(final Call call) {
                expired.add(call);
            }

            @Override
            public void swept(final boolean sentCallExpired) {
                if (!expired.isEmpty()) {
                    assertFalse(sentCallExpired, "the overdue call was never sent");
                    swept.countDown();
                }
            }
        });
        assertTrue(swept.await(5, TimeUnit.SECONDS), "no sweep expired the overdue call, or no sweeps followed");
        assertEquals(List.of(overdue), expired);
        assertEquals(1, c.inFlight());
        assertSame(alive, c.take(alive.id()));
        assertNull(c.take(alive.id()), "a call ends once");
    }

    @Test
    void shouldRefuseACallBeyondTheBoundOnlyUntilAnotherEnds() {
        final RpcClientCore<Call> c = core(1, Duration.ofMillis(20), 2);
        final long later = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        final Call first = new Call(c.nextRequestId(), later);
        assertTrue(c.register(first));
        assertTrue(c.register(new Call(c.nextRequestId(), later)));
        final long start = System.nanoTime();
        assertFalse(c.register(new Call(c.nextRequestId(), later)), "a third call fits a bound of two");
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(15), "it waited for room first");
        assertTrue(c.remove(first));
        assertFalse(c.remove(first), "a call is removed once");
        assertTrue(c.register(new Call(c.nextRequestId(), later)));
        assertEquals(2, c.inFlight());
    }

    @Test
    void shouldNameTheServerWhenItCannotConnect() throws Exception {
        final int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        final RpcClientCore<Call> c = core(port, Duration.ofSeconds(1), 0);
        final RpcConnectException e = assertThrows(RpcConnectException.class,
                () -> c.connectNow(c.bootstrap(c.group(), new ChannelInboundHandlerAdapter(), 0)));
        assertTrue(e.getMessage().startsWith("cannot connect to the test server at 127.0.0.1:" + port), e.getMessage());
        assertFalse(e.handshake());
    }
}
