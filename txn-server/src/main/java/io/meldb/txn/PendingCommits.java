package io.meldb.txn;

import io.meldb.txn.api.TxnId;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Commits of this process waiting for their decision, by sequence (unique within the process). Sessions add
 * them; the reply stage answers them once meld decided; the stream healer answers the ones a re-fence
 * superseded; a stop or failure answers the rest with OUTCOME_UNKNOWN.
 */
public final class PendingCommits {
    /** A commit waiting for its decision, with the incarnation its intention was appended under. */
    private record Pending(long incarnation, CompletableFuture<Long> future, long deadlineNanos) {
    }

    /**
     * A commit's answer, stamped with when its session appended the intention: the reply stage measures the commit's
     * path from it ({@link CommitPathProfile}). Dependents are plain futures.
     */
    public static final class Decision extends CompletableFuture<Long> {
        private final long registeredNanos;

        Decision(final long registeredNanos) {
            this.registeredNanos = registeredNanos;
        }

        /** {@link System#nanoTime()} when the commit was registered, just before its append. */
        public long registeredNanos() {
            return registeredNanos;
        }

        @Override
        public <U> CompletableFuture<U> newIncompleteFuture() {
            return new CompletableFuture<>();
        }
    }

    private final ConcurrentHashMap<Long, Pending> pending = new ConcurrentHashMap<>();

    /** Registers the commit of transaction ({@code incarnation}, {@code sequence}); its future is the answer. */
    public Decision register(final long incarnation, final long sequence) {
        return register(incarnation, sequence, Long.MAX_VALUE);
    }

    /**
     * As {@link #register(long, long)}, for a commit whose client waits at most {@code waitNanos}: past that,
     * {@link #expire} answers it (with OUTCOME_UNKNOWN) if meld has not, whichever front end waits for it.
     */
    public Decision register(final long incarnation, final long sequence, final long waitNanos) {
        final long now = System.nanoTime();
        final Decision decided = new Decision(now);
        final long deadline = waitNanos >= Long.MAX_VALUE - now ? Long.MAX_VALUE : now + waitNanos;
        pending.put(sequence, new Pending(incarnation, decided, deadline));
        return decided;
    }

    /**
     * Answers every commit past its deadline at {@code nowNanos} with {@code failure} of its id: a commit stuck
     * behind a log that does not answer (an outage longer than the commit timeout) gets a clear answer instead of
     * waiting until its client gives up. Its outcome stays askable (OUTCOME); meld's later decision finds it gone.
     */
    public int expire(final long nowNanos, final Function<TxnId, Throwable> failure) {
        int expired = 0;
        for (Map.Entry<Long, Pending> e : pending.entrySet()) {
            final Pending p = e.getValue();
            if (p.deadlineNanos() != Long.MAX_VALUE && nowNanos - p.deadlineNanos() > 0
                && pending.remove(e.getKey(), p)) {
                expired++;
                p.future().completeExceptionally(failure.apply(new TxnId(p.incarnation(), e.getKey())));
            }
        }
        return expired;
    }

    /** Removes and returns the answer of ({@code incarnation}, {@code sequence}) if it is still waiting here. */
    public CompletableFuture<Long> take(final long incarnation, final long sequence) {
        final Pending p = pending.get(sequence);
        return p != null && p.incarnation() == incarnation && pending.remove(sequence, p) ? p.future() : null;
    }

    /**
     * After a re-fence to {@code newIncarnation}: every commit of an older incarnation whose intention the reader
     * never saw (and whose outcome is unknown) did not reach the log before the fence, and meld rejects it after:
     * {@code failure} gets its id and says so.
     */
    public void resolveSuperseded(final long newIncarnation, final Function<TxnId, Boolean> inLogOrDecided,
                                  final Function<TxnId, Throwable> failure, final Runnable onEach) {
        for (Map.Entry<Long, Pending> e : pending.entrySet()) {
            final Pending p = e.getValue();
            final TxnId id = new TxnId(p.incarnation(), e.getKey());
            if (p.incarnation() < newIncarnation && !inLogOrDecided.apply(id) && pending.remove(e.getKey(), p)) {
                onEach.run();
                p.future().completeExceptionally(failure.apply(id));
            }
        }
    }

    /** Answers every waiting commit with {@code failure} of its id (the server stopped or failed). */
    public void failAll(final Function<TxnId, Throwable> failure) {
        for (Long seq : pending.keySet()) {
            final Pending p = pending.remove(seq);
            if (p != null) {
                p.future().completeExceptionally(failure.apply(new TxnId(p.incarnation(), seq)));
            }
        }
    }
}
