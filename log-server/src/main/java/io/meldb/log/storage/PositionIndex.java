package io.meldb.log.storage;

import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Where each log position lives across Chronicle's roll cycles (Hyder II §5.1: the log is a dense sequence of
 * positions; docs/log-server.md, "Storage"). Chronicle numbers excerpts by (cycle, sequence within the cycle) and
 * cycles follow the clock, so the store keeps {@code first position of a queue file -> cycle}: as the queue's only
 * writer appends densely inside a cycle, position {@code p} is excerpt {@code p - first(c)} of the cycle {@code c}
 * whose first position is the greatest one {@code <= p}. One entry per queue file, rebuilt at start-up by
 * {@link QueueRecovery} from the first excerpt of each file.
 *
 * <p>Written by the writer thread (a new file) and by retention (a deleted file), read by every reader; retention
 * synchronizes on this object so two trims never delete the same file.
 */
final class PositionIndex {
    /** First position stored in each queue file -> that file's cycle. */
    final ConcurrentSkipListMap<Long, Integer> cycles = new ConcurrentSkipListMap<>();

    /** The queue file that holds {@code position}: its first position and its cycle, or null below the first file. */
    Map.Entry<Long, Integer> fileHolding(long position) {
        return cycles.floorEntry(position);
    }

    /** Writer thread: {@code position} is the first excerpt of {@code cycle}'s queue file. */
    void fileStarted(long position, int cycle) {
        cycles.put(position, cycle);
    }

    /** The oldest queue file: its first position and its cycle, or null if there is none. */
    Map.Entry<Long, Integer> oldestFile() {
        return cycles.firstEntry();
    }

    /** The first position of the queue file after the one starting at {@code start}, or null if it is the newest. */
    Long nextFileStart(long start) {
        return cycles.higherKey(start);
    }

    void fileDeleted(long start) {
        cycles.remove(start);
    }

    /** The cycle of the newest queue file, or {@link Integer#MIN_VALUE} if there is none. */
    int newestCycle() {
        Map.Entry<Long, Integer> e = cycles.lastEntry();
        return e == null ? Integer.MIN_VALUE : e.getValue();
    }

    int fileCount() {
        return cycles.size();
    }
}
