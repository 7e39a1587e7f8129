package io.meldb.txn.pipeline;

import io.meldb.txn.ClusterConfig;
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
 * in log order to the {@link MeldStage}; the {@link ReplyStage} records outcomes and answers clients. In mode
 * CHAINED reader, decode, premeld, meld and reply are one chain of calls on one thread, the in-process log's
 * subscription thread where it can be ({@link #readsOnLogThread}). This class only builds, starts and stops them.
 */
public final class Pipeline implements AutoCloseable {
    private final ServerContext ctx;
    private final StageLinks links;
    private final LogIntake intake;
    private final LogReaderStage reader;
    private final List<Thread> threads = new ArrayList<>();
    private final Thread readerThread;
    private final Thread meldThread;
    /** The log subscription's own thread runs the reader, meld and reply stages (see {@link #readsOnLogThread}). */
    private final boolean direct;

    /**
     * Builds the stages over the recovered state at {@code recoveredCsn} (records ending at or before
     * {@code skipThrough} are in it) and starts every stage thread but the reader's.
     */
    public Pipeline(final ServerContext ctx, final Checkpointer checkpointer, final IntentionAppender appender,
                    final long recoveredCsn, final long skipThrough) {
        this.ctx = ctx;
        final ThreadingMode mode = ctx.config().threading();
        final int decoders = decodeThreads(mode, ctx.config().decodeThreads());
        final int premelds = mode.premeldOnThreads() ? ctx.cluster().premeldThreads() : 0;
        final boolean separateMeld = mode.separateDecoder();
        this.direct = readsOnLogThread(mode, ctx.log().deliversOnOwnThread(), ctx.cluster());
        this.links = new StageLinks(ctx, separateMeld, decoders, premelds);
        this.intake = new LogIntake(ctx);
        final ReplyStage replies = new ReplyStage(ctx, links);
        final MeldStage meld = new MeldStage(ctx, links, checkpointer, appender, mode.replyInline() ? replies : null);
        this.reader = new LogReaderStage(ctx, links, intake, meld, separateMeld, recoveredCsn, skipThrough);
        final int serverId = ctx.serverId();
        for (int i = 0; i < decoders; i++) {
            start(new DecoderStage(ctx, links, i)::run, "meldb-decode-" + serverId + "-" + i);
        }
        for (int i = 0; i < premelds; i++) {
            start(new PremeldStage(ctx, links, i)::run, "meldb-premeld-" + serverId + "-" + i);
        }
        this.meldThread = separateMeld ? start(meld::run, "meldb-meld-" + serverId) : null;
        if (!mode.replyInline()) {
            start(replies::run, "meldb-reply-" + serverId);
        }
        this.readerThread = newThread(reader::run, "meldb-reader-" + serverId);
    }

    /**
     * Whether the log subscription's thread runs the chained pipeline itself, with no reader thread: in mode
     * CHAINED, when the log delivers on a thread of its own (the in-process log) and the cluster never holds an
     * intention back (group meld and a reorder window do, and need a reader thread that wakes on a timer to nudge
     * them on a quiet log).
     */
    static boolean readsOnLogThread(final ThreadingMode mode, final boolean logDeliversOnOwnThread,
                                    final ClusterConfig cluster) {
        return mode == ThreadingMode.CHAINED && logDeliversOnOwnThread && !cluster.groupMeld()
            && cluster.reorder().window() == 0;
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
        if (direct) {
            intake.subscribeDirect(from, reader::processBlock);
        } else {
            readerThread.start();
            intake.subscribe(from);
        }
    }

    /** Wakes every stage thread, to notice that the server stopped or failed. */
    public void wakeAll() {
        links.wakeAll();
    }

    /**
     * Heap bytes the meld stage's thread has allocated so far (the reader's in threading modes SHARED and CHAINED,
     * the log subscription's when it runs the reader), from the JVM's per-thread allocation counter; -1 where the
     * JVM does not offer it, 0 before a directly delivering subscription delivered anything.
     */
    public long meldThreadAllocatedBytes() {
        final Thread t = meldThread != null ? meldThread : direct ? intake.directThread() : readerThread;
        if (t == null) {
            return 0;
        }
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

    /** Whether every thread that touches node memory (reader and meld, or the subscription running them) has ended. */
    public boolean meldStopped() {
        final Thread subscriber = intake.directThread();
        return !readerThread.isAlive() && (meldThread == null || !meldThread.isAlive())
            && (subscriber == null || !subscriber.isAlive());
    }

    /** Whether the log subscription's own thread reads and melds (threading mode CHAINED over the in-process log). */
    public boolean readsOnLogThread() {
        return direct;
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
