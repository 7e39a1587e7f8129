package io.meldb.log.server;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.log.LogException;
import io.meldb.log.client.BlockListener;
import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.log.client.LogSubscription;
import io.netty.buffer.ByteBuf;
import net.openhft.chronicle.queue.rollcycles.TestRollCycles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Everything the log service does, at once, against one server: pipelined appends from several connections,
 * subscribers (one that keeps pausing), random READs and TRIMs, with blocks read on the read threads and pushed from
 * the event loops. Every block carries its own identity, so whatever comes back can be checked against what each
 * APPEND was answered with.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LogServerConcurrencyTest {
    private static final int BLOCK = 512;
    private static final int APPENDERS = 3;
    private static final int WINDOW = 32;
    private static final long RUN_MILLIS = 3_000;

    @TempDir
    Path dir;

    /** Position → identity of the block stored there, from the APPEND answers. */
    private final ConcurrentHashMap<Long, Long> acked = new ConcurrentHashMap<>();
    /** Position → identity of the block seen there by a subscriber or a READ. */
    private final ConcurrentHashMap<Long, Long> seen = new ConcurrentHashMap<>();
    private final AtomicReference<String> problem = new AtomicReference<>();
    private final AtomicLong blocksRead = new AtomicLong();
    private final AtomicLong resubscribed = new AtomicLong();

    /** A block whose first 8 bytes are its identity and the rest follow from it. */
    private static byte[] block(long identity) {
        byte[] b = new byte[BLOCK];
        new Random(identity).nextBytes(b);
        ByteBuffer.wrap(b).putLong(0, identity);
        return b;
    }

    /** The identity of a block read back, after checking that its bytes are that block's. */
    private long identityOf(long position, byte[] b) {
        long identity = ByteBuffer.wrap(b).getLong(0);
        if (b.length == BLOCK && ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(0) == CheckpointCeiling.BLOCK_MAGIC) {
            // the trimmer's checkpoint: its identity is minus its resume position (offset 82 in a one-block checkpoint)
            long resume = ByteBuffer.wrap(b).getLong(82);
            identity = -resume;
            if (!Arrays.equals(b, TestCheckpoints.lastChunk(BLOCK, 9, resume, 0).get(0))) {
                fail("the checkpoint block at position " + position + " is damaged");
            }
        } else if (b.length != BLOCK || !Arrays.equals(b, block(identity))) {
            fail("the block at position " + position + " is damaged");
        }
        Long before = seen.putIfAbsent(position, identity);
        if (before != null && before != identity) {
            fail("position " + position + " was seen holding " + before + " and " + identity);
        }
        return identity;
    }

    private void fail(String message) {
        problem.compareAndSet(null, message);
    }

    @Test
    void keepsEveryAnswerConsistentUnderConcurrentAppendsReadsSubscribersAndTrims() throws Exception {
        LogServerConfig config = LogServerConfig.at(dir).blockSize(BLOCK).metricsPort(-1).ioThreads(2).readThreads(2)
                .writeBufferWaterMarks(16 * 1024, 32 * 1024);
        config.store().rollCycle(TestRollCycles.TEST_SECONDLY);
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        List<Subscriber> subscribers = new ArrayList<>();
        try (LogServer server = LogServer.start(config);
             LogClient control = connect(server)) {
            control.create(BLOCK, "stress".getBytes(StandardCharsets.UTF_8)).join();
            List<LogClient> clients = new ArrayList<>();
            try {
                for (int a = 0; a < APPENDERS; a++) {
                    LogClient c = connect(server);
                    clients.add(c);
                    long base = (a + 1L) << 40;
                    threads.add(new Thread(() -> append(c, base, stop), "appender-" + a));
                }
                LogClient reader = connect(server);
                clients.add(reader);
                threads.add(new Thread(() -> read(reader, stop), "reader"));
                threads.add(new Thread(() -> trim(control, stop), "trimmer"));
                for (int s = 0; s < 2; s++) {
                    LogClient c = connect(server);
                    clients.add(c);
                    subscribers.add(new Subscriber(c, control, s == 1));
                }
                threads.forEach(Thread::start);
                Thread.sleep(RUN_MILLIS);
                stop.set(true);
                for (Thread t : threads) {
                    t.join(30_000);
                    assertFalse(t.isAlive(), t.getName() + " did not stop");
                }
                long tail = control.tail().join();
                for (Subscriber s : subscribers) {
                    s.awaitPosition(tail);
                }
                assertNull(problem.get(), problem.get());
                long trimPoint = control.status().join().trimPoint();
                assertEquals(tail - 1, acked.size(), "one answer per appended position");
                for (long p = 1; p < tail; p++) {
                    assertTrue(acked.containsKey(p), "position " + p + " was never answered");
                }
                for (var e : seen.entrySet()) {
                    assertEquals(acked.get(e.getKey()), e.getValue(), "the block seen at position " + e.getKey());
                }
                for (long p = trimPoint; p < tail; p++) {
                    assertTrue(seen.containsKey(p), "no subscriber received position " + p);
                }
                System.out.printf("%,d appends, trim point %,d, %,d blocks read, %d resubscriptions after TRIMMED%n",
                        tail - 1, trimPoint, blocksRead.get(), resubscribed.get());
                assertTrue(trimPoint > 1, "the run trimmed (trim point " + trimPoint + ")");
                assertTrue(blocksRead.get() > 0, "the reader read something");
            } finally {
                stop.set(true);
                for (Subscriber s : subscribers) {
                    s.close();
                }
                for (LogClient c : clients) {
                    c.close();
                }
            }
        }
    }

    private static LogClient connect(LogServer server) {
        return LogClient.connect(LogClientOptions.to("127.0.0.1", server.port()).requestTimeout(Duration.ofSeconds(30)));
    }

    private void append(LogClient client, long base, AtomicBoolean stop) {
        Semaphore window = new Semaphore(WINDOW);
        try {
            for (long seq = 0; !stop.get(); seq++) {
                window.acquire();
                long identity = base + seq;
                client.append(block(identity)).whenComplete((position, e) -> {
                    if (e != null) {
                        fail("append " + identity + " failed: " + e);
                    } else if (acked.putIfAbsent(position, identity) != null) {
                        fail("position " + position + " was answered twice");
                    }
                    window.release();
                });
            }
            window.acquire(WINDOW);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Random READs of what is there: the blocks must be intact, or the range trimmed meanwhile. */
    private void read(LogClient client, AtomicBoolean stop) {
        Random random = new Random(7);
        while (!stop.get()) {
            var status = client.status().join();
            long live = status.tail() - status.trimPoint();
            if (live <= 0) {
                continue;
            }
            long position = status.trimPoint() + (long) (random.nextDouble() * live);
            int count = 1 + random.nextInt(16);
            try {
                List<byte[]> blocks = client.read(position, count).join();
                for (int i = 0; i < blocks.size(); i++) {
                    identityOf(position + i, blocks.get(i));
                }
                blocksRead.addAndGet(blocks.size());
            } catch (CompletionException e) {
                if (!(e.getCause() instanceof LogErrorException le && le.code() == ErrorCode.TRIMMED)) {
                    fail("READ(" + position + ", " + count + ") failed: " + e.getCause());
                }
            }
        }
    }

    /** Every 300 ms, releases all but the last 3,000 positions. */
    private void trim(LogClient client, AtomicBoolean stop) {
        try {
            while (!stop.get()) {
                Thread.sleep(300);
                long tail = client.tail().join();
                if (tail > 3_001) {
                    // a checkpoint resuming 3,000 back allows the trim
                    long at = client.append(TestCheckpoints.lastChunk(BLOCK, 9, tail - 3_000, 0).get(0)).join();
                    acked.put(at, -(tail - 3_000));
                    client.trim(tail - 3_000).join();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Subscribes from position 1 and checks that the pushes come in order without gaps; when trimmed away under it
     * (TRIMMED), subscribes again from the trim point. A pausing one stops reading for 50 ms every 100 ms, so that
     * the server has to hold it back and let it catch up.
     */
    private final class Subscriber implements BlockListener {
        private final LogClient client;
        private final LogClient control;
        private final boolean pausing;
        private final Thread pauser;
        private volatile LogSubscription subscription;
        private volatile long expected;
        private volatile boolean pausingStopped;
        private volatile boolean closed;

        Subscriber(LogClient client, LogClient control, boolean pausing) {
            this.client = client;
            this.control = control;
            this.pausing = pausing;
            subscribe(1);
            pauser = pausing ? new Thread(this::pauseNowAndThen, "pauser") : null;
            if (pauser != null) {
                pauser.start();
            }
        }

        private void subscribe(long from) {
            expected = from;
            subscription = client.subscribe(from, this);
        }

        private void pauseNowAndThen() {
            try {
                while (!pausingStopped) {
                    Thread.sleep(50);
                    subscription.pause();
                    Thread.sleep(50);
                    subscription.resume();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void onBlock(long position, ByteBuf block) {
            if (position != expected) {
                fail("a subscriber expecting position " + expected + " was pushed " + position);
            }
            expected = position + 1;
            byte[] b = new byte[block.readableBytes()];
            block.getBytes(block.readerIndex(), b);
            identityOf(position, b);
        }

        @Override
        public void onError(LogException e) {
            if (closed) {
                return;
            }
            if (e instanceof LogErrorException le && le.code() == ErrorCode.TRIMMED) {
                // resubscribing from inside the client's callback would wait on the client's own event loop
                resubscribed.incrementAndGet();
                new Thread(() -> subscribe(control.status().join().trimPoint()), "resubscribe").start();
            } else {
                fail("subscription failed: " + e);
            }
        }

        void awaitPosition(long tail) throws InterruptedException {
            if (pausing) {
                pausingStopped = true;
                pauser.join();
                subscription.resume();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (expected < tail) {
                assertTrue(System.nanoTime() < deadline, "a subscriber is stuck at " + expected + " of " + tail);
                Thread.sleep(5);
            }
        }

        void close() {
            closed = true;
            LogSubscription s = subscription;
            if (s != null) {
                s.close();
            }
        }
    }
}
