package io.meldb.txn.pipeline;

import org.agrona.concurrent.OneToOneConcurrentArrayQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The park/wake protocol of the pipeline threads: a parked thread wakes for work at once, and no wake-up is lost. */
class StageIdlerTest {
    /** Far longer than any test here: a lost wake-up shows as a stall of this length. */
    private static final long LONG_PARK = TimeUnit.SECONDS.toNanos(20);

    @Test
    @Timeout(30)
    void wakesAParkedOwnerAtOnceInsteadOfAfterItsParkBound() throws Exception {
        final StageIdler idler = new StageIdler(0, 0, LONG_PARK);
        final AtomicBoolean work = new AtomicBoolean();
        final AtomicLong wokenAfter = new AtomicLong(-1);
        final AtomicLong setAt = new AtomicLong();
        final Thread owner = new Thread(() -> {
            while (!work.get()) {
                idler.idle();
            }
            idler.reset();
            wokenAfter.set(System.nanoTime() - setAt.get());
        }, "idler-owner");
        owner.start();
        try {
            while (idler.parks() == 0) {
                Thread.sleep(1);
            }
            Thread.sleep(50); // well into its park
            setAt.set(System.nanoTime());
            work.set(true);
            idler.wake();
            owner.join(10_000);
            assertTrue(wokenAfter.get() >= 0, "the owner did not wake");
            assertTrue(wokenAfter.get() < TimeUnit.SECONDS.toNanos(2), "woke only after " + wokenAfter.get() + " ns");
        } finally {
            work.set(true);
            LockSupport.unpark(owner); // a test that failed half-way must not leave it parked
            owner.join(10_000);
        }
    }

    @Test
    @Timeout(60)
    void losesNoWakeUpBetweenProducersAndParkingConsumers() throws Exception {
        // a ping-pong in which both sides park between items as often as possible: any lost wake-up stalls it for
        // LONG_PARK, far beyond the time budget
        final int items = 20_000;
        final OneToOneConcurrentArrayQueue<Integer> ping = new OneToOneConcurrentArrayQueue<>(4);
        final OneToOneConcurrentArrayQueue<Integer> pong = new OneToOneConcurrentArrayQueue<>(4);
        final StageIdler pinger = new StageIdler(0, 0, LONG_PARK);
        final StageIdler ponger = new StageIdler(0, 0, LONG_PARK);
        final AtomicReference<Throwable> error = new AtomicReference<>();
        final Thread echo = new Thread(() -> {
            try {
                for (int i = 0; i < items; i++) {
                    Integer v;
                    while ((v = ping.poll()) == null) {
                        ponger.idle();
                    }
                    ponger.reset();
                    while (!pong.offer(v)) {
                        ponger.idle();
                    }
                    ponger.reset();
                    pinger.wake();
                }
            } catch (Throwable t) {
                error.set(t);
            }
        }, "idler-echo");
        echo.start();
        final long start = System.nanoTime();
        try {
            for (int i = 0; i < items; i++) {
                final Integer sent = i;
                while (!ping.offer(sent)) {
                    pinger.idle();
                }
                pinger.reset();
                ponger.wake();
                Integer back;
                while ((back = pong.poll()) == null) {
                    pinger.idle();
                }
                pinger.reset();
                assertEquals(sent, back);
            }
        } finally {
            echo.join(LONG_PARK / 1_000_000 * 2);
        }
        final long elapsed = System.nanoTime() - start;
        assertNull(error.get());
        assertTrue(elapsed < LONG_PARK / 2, items + " round trips took " + elapsed / 1_000_000 + " ms: a wake-up was lost");
        assertTrue(pinger.parks() + ponger.parks() > 0, "nobody parked: the test did not exercise the protocol");
    }

    @Test
    @Timeout(30)
    void anIdleOwnerParksOnlyAFewTimesPerSecond() throws Exception {
        final StageIdler idler = new StageIdler();
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread owner = new Thread(() -> {
            while (!stop.get()) {
                idler.idle();
            }
        }, "idler-idle");
        owner.start();
        try {
            Thread.sleep(1_000);
        } finally {
            stop.set(true);
            idler.wake();
            owner.join(10_000);
        }
        // the safety bound of 100 ms: about 10 parks in a second, where a backoff parking 200 µs makes thousands
        assertTrue(idler.parks() <= 15, idler.parks() + " parks in one idle second");
    }
}
