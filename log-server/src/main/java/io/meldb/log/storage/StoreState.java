package io.meldb.log.storage;

import io.meldb.log.LogErrorException;
import io.meldb.log.LogStore.TailListener;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What the store's roles (writer, retention, readers, the façade) share: the log's metadata, its tail and trim
 * point, the failure that stopped it, and who is told when the tail advances (Hyder II §5.1; docs/log-server.md,
 * "Storage"). Holding it here lets the roles read one another's results without calling one another.
 */
final class StoreState {
    /** Taken by CREATE and TRIM, which both rewrite {@code log.meta}. */
    final Object metaLock = new Object();
    volatile LogMeta meta;
    /** One past the last acknowledged position; written by the writer thread only. */
    volatile long tail;
    volatile long trimPoint = 1;
    /** Set once a write or force failed; the store then accepts no more appends until restarted. */
    volatile LogErrorException failure;
    /** Copied on change, read by index: the writer tells them after every batch without allocating an iterator. */
    private volatile TailListener[] tailListeners = new TailListener[0];

    TailListener[] tailListeners() {
        return tailListeners;
    }

    synchronized void addTailListener(TailListener listener) {
        TailListener[] now = Arrays.copyOf(tailListeners, tailListeners.length + 1);
        now[now.length - 1] = listener;
        tailListeners = now;
    }

    synchronized void removeTailListener(TailListener listener) {
        List<TailListener> now = new ArrayList<>(Arrays.asList(tailListeners));
        now.remove(listener);
        tailListeners = now.toArray(new TailListener[0]);
    }
}
