package io.meldb.wire;

import io.netty.util.concurrent.EventExecutor;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Plumbing of the log service's pipelined appends (Hyder II §5.1): hands items from any thread to one event loop in batches: however many items are posted while a delivery is
 * pending, the event loop runs one task for all of them, so a storage batch of hundreds of acknowledgements (or a
 * burst of client appends) costs one wake-up and one flush instead of one per item.
 */
public abstract class Mailbox<T> implements Runnable {
    private final EventExecutor executor;
    private final ConcurrentLinkedQueue<T> items = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();

    protected Mailbox(EventExecutor executor) {
        this.executor = executor;
    }

    /** Any thread: adds an item and wakes the event loop to deliver it, unless a delivery is already pending. */
    public final void post(T item) {
        items.add(item);
        schedule();
    }

    /**
     * Any thread: adds an item without waking the event loop; a later {@link #schedule} (or {@link #post}) delivers
     * it. For producers that finish a whole batch before the consumer should run.
     */
    public final void offer(T item) {
        items.add(item);
    }

    /** Any thread: wakes the event loop to deliver what was posted or offered, unless a delivery is already pending. */
    public final void schedule() {
        if (scheduled.compareAndSet(false, true)) {
            try {
                executor.execute(this);
            } catch (RejectedExecutionException e) {
                for (T t; (t = items.poll()) != null; ) {
                    rejected(t);
                }
            }
        }
    }

    @Override
    public final void run() {
        scheduled.set(false);
        int n = 0;
        for (T t; (t = items.poll()) != null; n++) {
            deliver(t);
        }
        if (n > 0) {
            delivered();
        }
    }

    /** Event loop: one item. */
    protected abstract void deliver(T item);

    /** Event loop: after a batch of {@link #deliver} calls (flush here). */
    protected void delivered() {
    }

    /** The event loop is gone: release the item. */
    protected abstract void rejected(T item);
}
