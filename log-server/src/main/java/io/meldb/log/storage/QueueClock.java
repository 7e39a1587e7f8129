package io.meldb.log.storage;

import net.openhft.chronicle.core.time.TimeProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The clock that picks the queue file an append goes to (Chronicle Queue rolls files by time; the log's positions
 * do not depend on it). It is the wall clock, except that it never goes back: not before a time it has already
 * given, nor before the start of the newest queue file found on disk. A wall clock stepped back (NTP, a VM resumed
 * elsewhere) would otherwise send Chronicle's appender to an older queue file, already closed, and the store would
 * fail ({@code WriteAfterEOFException}); after a restart, to a new file ordered before the newest one. While the
 * wall clock is behind, appends go on into the newest file.
 */
final class QueueClock implements TimeProvider {
    private static final Logger LOG = LoggerFactory.getLogger(QueueClock.class);

    private final TimeProvider wall;
    private final AtomicLong last = new AtomicLong(Long.MIN_VALUE);
    private volatile boolean behindReported;

    QueueClock(TimeProvider wall) {
        this.wall = wall;
    }

    /** Never gives a time before {@code millis} (the start of the newest queue file). */
    void notBefore(long millis) {
        last.accumulateAndGet(millis, Math::max);
    }

    @Override
    public long currentTimeMillis() {
        long now = wall.currentTimeMillis();
        while (true) {
            long prev = last.get();
            if (now <= prev) {
                if (now < prev - 1000 && !behindReported) {
                    behindReported = true;
                    LOG.warn("the wall clock is {} ms behind the log's newest queue file; appends go on into that file",
                            prev - now);
                }
                return prev;
            }
            if (last.compareAndSet(prev, now)) {
                if (behindReported) {
                    behindReported = false;
                    LOG.info("the wall clock has caught up with the log's queue files");
                }
                return now;
            }
        }
    }
}
