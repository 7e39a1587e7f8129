package io.meldb.log.server;

import io.netty.util.concurrent.AbstractEventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * Stands in for a connection's event loop in tests that drive the handler through an {@code EmbeddedChannel}: other
 * threads (the store's writer, read threads) may hand it work at any time, and the test's own thread, the one the
 * channel is confined to, carries that work out in {@link #runPending}. Netty's {@code EmbeddedEventLoop} queues
 * tasks in an {@code ArrayDeque}, which those threads must not touch.
 */
final class TestLoop extends AbstractEventExecutor {
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Thread owner = Thread.currentThread();
    private volatile boolean shutdown;
    private long tasksRun;

    /** The owner's thread: runs every task handed over so far, and those they hand over in turn. */
    int runPending() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("runPending() outside the thread that created this loop");
        }
        int n = 0;
        for (Runnable r; (r = tasks.poll()) != null; n++) {
            r.run();
        }
        tasksRun += n;
        return n;
    }

    /** Tasks run so far. */
    long tasksRun() {
        return tasksRun;
    }

    @Override
    public void execute(Runnable task) {
        if (shutdown) {
            throw new java.util.concurrent.RejectedExecutionException("the test loop is shut down");
        }
        tasks.add(task);
    }

    @Override
    public boolean inEventLoop(Thread thread) {
        return thread == owner;
    }

    @Override
    public boolean isShuttingDown() {
        return shutdown;
    }

    @Override
    public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
        shutdown = true;
        return terminationFuture();
    }

    @Override
    public Future<?> terminationFuture() {
        return ImmediateEventExecutor.INSTANCE.newSucceededFuture(null);
    }

    @Override
    @Deprecated
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown && tasks.isEmpty();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return isTerminated();
    }
}
