package io.meldb.txn.pipeline;

import io.meldb.txn.ServerContext;
import io.meldb.txn.ThreadingMode;
import io.meldb.txn.checkpoint.Checkpointer;
import io.meldb.txn.session.IntentionAppender;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * A txn-server's meld pipeline (Hyder II §5.2-5.3; docs/architecture.md "Data flow of one update transaction"), laid out on
 * threads as its {@link ThreadingMode} says: {@link LogIntake} (the log client's I/O thread) feeds the
 * {@link LogReaderStage}, which hands intentions to {@link DecoderStage}s and {@link PremeldStage}s and everything
 * in log order to the {@link MeldStage}; the {@link ReplyStage} records outcomes and answers clients. This class
 * only builds, starts and stops them.
 */
public final class Pipeline implements AutoCloseable {
    private final ServerContext ctx;
    private final StageLinks links;
    private final LogIntake intake;
    private final LogReaderStage reader;
    private final List<Thread> threads = new ArrayList<>();
    private final Thread readerThread;
    private final Thread meldThread;

    /**
     * Builds the stages over the recovered state at {@code recoveredCsn} (records ending at or before
     * {@code skipThrough} are in it) and starts every stage thread but the reader's.
     */
    public Pipeline(final ServerContext ctx, final Checkpointer checkpointer, final IntentionAppender appender,
                    final long recoveredCsn, final long skipThrough) {
        this.ctx = ctx;
        final ThreadingMode mode = ctx.config().threading();
        final int decoders = decodeThreads(ctx.config().threading(), ctx.config().decodeThreads());
        final int premelds = mode.premeldOnThreads() ? ctx.cluster().premeldThreads() : 0;
        final boolean separateMeld = mode.separateDecoder();
        this.links = new StageLinks(ctx, separateMeld, decoders, premelds);
        this.intake = new LogIntake(ctx);
        final MeldStage meld = new MeldStage(ctx, links, checkpointer, appender);
        this.reader = new LogReaderStage(ctx, links, intake, meld, checkpointer, separateMeld, recoveredCsn,
            skipThrough);
        final int serverId = ctx.serverId();
        for (int i = 0; i < decoders; i++) {
            start(new DecoderStage(ctx, links, i)::run, "meldb-decode-" + serverId + "-" + i);
        }
        for (int i = 0; i < premelds; i++) {
            start(new PremeldStage(ctx, links, i)::run, "meldb-premeld-" + serverId + "-" + i);
        }
        this.meldThread = separateMeld ? start(meld::run, "meldb-meld-" + serverId) : null;
        start(new ReplyStage(ctx, links)::run, "meldb-reply-" + serverId);
        this.readerThread = newThread(reader::run, "meldb-reader-" + serverId);
    }

    /** Deserializer threads of a threading mode (none when the reader decodes). */
    public static int decodeThreads(final ThreadingMode mode, final int configured) {
        return mode.separateDecoder() ? configured : 0;
    }

    private Thread newThread(final Runnable body, final String name) {
        final Thread t = new Thread(body, name);
        t.setDaemon(true);
        threads.add(t);
        return t;
    }

    private Thread start(final Runnable body, final String name) {
        final Thread t = newThread(body, name);
        t.start();
        return t;
    }

    /** Starts the reader and reading the log at {@code from}. */
    public void startReading(final long from) {
        readerThread.start();
        intake.subscribe(from);
    }

    /** Wakes every stage thread, to notice that the server stopped or failed. */
    public void wakeAll() {
        links.wakeAll();
    }

    /**
     * Heap bytes the meld stage's thread has allocated so far (the reader's in threading mode SHARED), from the
     * JVM's per-thread allocation counter; -1 where the JVM does not offer it.
     */
    public long meldThreadAllocatedBytes() {
        final Thread t = meldThread != null ? meldThread : readerThread;
        if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean mx)) {
            return -1;
        }
        return mx.getThreadAllocatedBytes(t.getId());
    }

    /** Blocks read from the log and not yet taken by the reader. */
    public int inboxSize() {
        return intake.size();
    }

    public long blocksDropped() {
        return reader.blocksDropped();
    }

    public long snapshotsTooOld() {
        return reader.snapshotsTooOld();
    }

    /** Whether every thread that touches node memory (reader and meld) has ended. */
    public boolean meldStopped() {
        return !readerThread.isAlive() && (meldThread == null || !meldThread.isAlive());
    }

    /** Stops reading and waits (up to 5 s each) for the stage threads; the context is already marked closed. */
    @Override
    public void close() {
        intake.close();
        for (Thread t : threads) {
            if (t.isAlive()) {
                try {
                    t.join(5000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
