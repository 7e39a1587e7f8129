package io.meldb.wire;

import io.netty.channel.Channel;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The bytes of partly received frames a server holds for all its connections together. A connection whose next
 * frame is not complete reserves the frame's length before reading more of it ({@link FrameDecoder}); when the
 * budget has no room, that connection stops being read (auto-read off) until another frame completes or a
 * connection closes and gives its reservation back. So many connections each sending most of a large frame make
 * each other wait instead of adding up to gigabytes; the per-connection bound is the frame size limit.
 */
public final class FrameBudget {
    private final long limit;
    private final AtomicLong reserved = new AtomicLong();
    private final ConcurrentLinkedQueue<Channel> waiting = new ConcurrentLinkedQueue<>();
    private final LongAdder waits = new LongAdder();

    public FrameBudget(long limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("the in-flight frame budget must be positive, got " + limit);
        }
        this.limit = limit;
    }

    public long limit() {
        return limit;
    }

    /** Bytes reserved by incomplete frames now. */
    public long reserved() {
        return reserved.get();
    }

    /** How many times a connection had to stop reading because the budget was spent. */
    public long waits() {
        return waits.sum();
    }

    /**
     * Reserves {@code bytes} for a frame of {@code ch}; when there is no room, stops reading {@code ch} until some is
     * given back and returns false. A frame alone larger than the budget is let through when nothing else is
     * reserved, so that it cannot wait forever.
     */
    boolean reserve(Channel ch, long bytes) {
        while (true) {
            long now = reserved.get();
            if (now + bytes > limit && now > 0) {
                waits.increment();
                ch.config().setAutoRead(false);
                waiting.add(ch);
                if (reserved.get() == 0) {
                    wakeAll(); // everything was given back between the check and the registration
                }
                return false;
            }
            if (reserved.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    void release(long bytes) {
        reserved.addAndGet(-bytes);
        if (!waiting.isEmpty()) {
            wakeAll();
        }
    }

    private void wakeAll() {
        for (Channel ch; (ch = waiting.poll()) != null; ) {
            if (ch.isActive()) {
                ch.config().setAutoRead(true);
            }
        }
    }
}
