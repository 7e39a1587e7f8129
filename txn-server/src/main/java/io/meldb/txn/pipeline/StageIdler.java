package io.meldb.txn.pipeline;

import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * How one pipeline thread (Hyder II §5.3: reader, deserializer, premeld, meld and reply stages) waits for work: a
 * short spin, a few yields, then it parks until a thread that made work for it calls {@link #wake()}. Under heavy
 * load a stage mostly finds work while spinning; an idle database parks every stage thread and costs no CPU, which
 * a backoff that parks for a fixed time in a loop does not achieve (each of its wake-ups is a timer and a context
 * switch: Agrona's backoff capped at 200 µs made thousands a second, about 3% of a core per thread).
 *
 * <p>The protocol, between the one owner thread and any number of wakers, loses no wake-up:
 * <ol>
 *   <li>the owner, out of spins and yields, publishes that it is about to sleep ({@link #idle} returns once after
 *   doing so, without parking, so that the caller looks for work again);</li>
 *   <li>finding none, it calls {@link #idle} again and parks;</li>
 *   <li>a waker first makes the work visible (a queue offer, a volatile flag or counter), then calls {@link #wake()},
 *   which unparks the owner if it published that it sleeps.</li>
 * </ol>
 * Both sides store, then load what the other stored, with a full fence in between (Dekker): either the owner sees
 * the work when it looks again, or the waker sees the owner asleep and unparks it; an unpark before the park makes
 * the park return at once. A wake-up the owner did not need costs it one more look for work.
 *
 * <p>Parks are bounded ({@code maxParkNanos}) as a safety net and for owners with timed duties (the meld thread
 * nudges a held group-meld intention after a quiet spell). Nothing here allocates, so the meld thread may idle
 * between intentions and stay allocation-free. Timing decides only when a thread runs, never what it decides.
 */
public final class StageIdler {
    /** Spins, then yields, before a thread announces it sleeps: the short gaps between jobs under load. */
    static final int SPINS = 20;
    static final int YIELDS = 10;
    /** Longest park: a thread looks for work this often even if no one wakes it (stop flags, missed conditions). */
    public static final long MAX_PARK_NANOS = 100_000_000;

    private final int maxSpins;
    private final int maxYields;
    private final long maxParkNanos;
    /** Owner only. */
    private int spins;
    private int yields;
    private boolean announced;
    /** The owner thread; written by the owner before its first announce, read by wakers after they see it. */
    private Thread owner;
    /** The owner may be parked, or about to park: a waker must unpark it. */
    private volatile boolean sleeping;
    /** Parks so far (tests: an idle thread parks a few times per second at most). */
    private volatile long parks;

    public StageIdler() {
        this(SPINS, YIELDS, MAX_PARK_NANOS);
    }

    public StageIdler(final int maxSpins, final int maxYields, final long maxParkNanos) {
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.maxParkNanos = maxParkNanos;
    }

    /** Owner: no work found; spins, yields, announces sleep (then returns for one more look), then parks. */
    public void idle() {
        idle(maxParkNanos);
    }

    /** Owner: as {@link #idle()}, parking at most {@code parkNanos} (and at most this idler's bound). */
    public void idle(final long parkNanos) {
        if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
        } else if (yields < maxYields) {
            yields++;
            Thread.yield();
        } else if (!announced) {
            if (owner == null) {
                owner = Thread.currentThread();
            }
            announced = true;
            sleeping = true;
            // the caller's next look for work must not be ordered before this store (Dekker with wake())
            VarHandle.fullFence();
        } else {
            parks++;
            LockSupport.parkNanos(this, Math.min(parkNanos, maxParkNanos));
        }
    }

    /** Owner: found work; the next idle spell starts with spinning again. */
    public void reset() {
        spins = 0;
        yields = 0;
        if (announced) {
            announced = false;
            sleeping = false;
        }
    }

    /** Any thread, after making work visible to the owner: unparks it if it sleeps or is about to. */
    public void wake() {
        // the work this thread just published must be visible before it reads the flag (Dekker with idle())
        VarHandle.fullFence();
        if (sleeping) {
            LockSupport.unpark(owner);
        }
    }

    /** Any thread: {@link #wake()} for each of {@code idlers}, with one fence for them all. */
    public static void wakeAll(final StageIdler[] idlers) {
        if (idlers.length == 0) {
            return;
        }
        VarHandle.fullFence();
        for (StageIdler idler : idlers) {
            if (idler.sleeping) {
                LockSupport.unpark(idler.owner);
            }
        }
    }

    /** Times the owner parked so far. */
    public long parks() {
        return parks;
    }
}
