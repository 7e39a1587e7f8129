package io.meldb.txn;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fences read from the log so far (docs/architecture.md "Failure and recovery"): each server's newest incarnation, and
 * the server of every incarnation seen since the recovery point. The log reader writes it; outcome queries, the
 * meld stage's nudge and the stream healer read it.
 */
public final class FenceBook {
    /** Newest incarnation of each server. */
    private final ConcurrentHashMap<Integer, Long> newest = new ConcurrentHashMap<>();
    /** Server of each incarnation seen. */
    private final ConcurrentHashMap<Long, Integer> servers = new ConcurrentHashMap<>();

    /** A fence of {@code server} at log {@code position}: its newest incarnation. */
    public void record(final int server, final long position) {
        newest.put(server, position);
        servers.put(position, server);
    }

    /** Adopts the fences a checkpoint manifest lists. */
    public void restore(final Map<Integer, Long> fences) {
        for (Map.Entry<Integer, Long> e : fences.entrySet()) {
            record(e.getKey(), e.getValue());
        }
    }

    /** The newest incarnation of {@code server} read so far, or {@code otherwise} when none was. */
    public long newest(final int server, final long otherwise) {
        return newest.getOrDefault(server, otherwise);
    }

    /** The newest incarnation of {@code server}, or null when no fence of it was read. */
    public Long newestOrNull(final int server) {
        return newest.get(server);
    }

    /** The server whose incarnation {@code incarnation} is, or null when that fence was not read here. */
    public Integer serverOf(final long incarnation) {
        return servers.get(incarnation);
    }

    /** A sorted copy, as a checkpoint manifest records it (sorted: the manifest's bytes do not depend on hashing). */
    public TreeMap<Integer, Long> copy() {
        return new TreeMap<>(newest);
    }
}
