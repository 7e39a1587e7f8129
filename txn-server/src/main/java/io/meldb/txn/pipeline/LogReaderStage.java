package io.meldb.txn.pipeline;

import io.meldb.core.Intention;
import io.meldb.core.IntentionDecoder;
import io.meldb.core.IntentionFormatException;
import io.meldb.txn.LogRecords;
import io.meldb.txn.OwnIntentions;
import io.meldb.txn.ServerContext;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.checkpoint.Generation;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The log reader (Hyder II §5.1-5.2). Thread: "meldb-reader-N". Receives blocks from {@link LogIntake} in log
 * order; reassembles each writer's records ({@link BlockDemux}), counts CSNs, applies fences, and rejects what
 * every replica rejects alike (malformed, fenced-off, snapshot too old). Publishes, in log order: each intention to
 * its deserializer thread (csn mod N) and premeld thread (csn mod t) and then to the meld stage; rejections, block
 * ends and checkpoint markers to the meld stage. In threading modes SHARED and CHAINED it decodes in line and runs
 * the meld stage itself; in CHAINED, with the in-process log, on the log subscription's thread instead of a thread
 * of its own.
 */
final class LogReaderStage {
    private static final Logger LOG = LoggerFactory.getLogger(LogReaderStage.class);

    private final ServerContext ctx;
    private final StageLinks links;
    private final LogIntake intake;
    private final MeldStage meld;
    /** Whether the meld stage runs on a thread of its own (else right here). */
    private final boolean meldThread;
    private final BlockDemux demux;
    private final UnsafeBuffer blockView = new UnsafeBuffer(new byte[0]);
    /** Records ending at or before this position are already in the recovered state. */
    private final long skipThrough;
    private long csn;
    /** When the log delivered, and the reader took, the block being read. */
    private long blockDeliveredNanos;
    private long blockReadNanos;
    private long lastCheckpointCsn;
    private volatile long snapshotsTooOld;

    LogReaderStage(final ServerContext ctx, final StageLinks links, final LogIntake intake, final MeldStage meld,
                   final boolean meldThread, final long recoveredCsn, final long skipThrough) {
        this.ctx = ctx;
        this.links = links;
        this.intake = intake;
        this.meld = meld;
        this.meldThread = meldThread;
        this.demux = new BlockDemux(ctx.cluster().blockSize(), this::onRecord);
        this.csn = recoveredCsn;
        this.lastCheckpointCsn = recoveredCsn;
        this.skipThrough = skipThrough;
    }

    void run() {
        try {
            while (!ctx.stopped()) {
                final LogIntake.Block b = intake.poll(!meldThread && meld.holding() ? 2 : 100);
                if (b == null) {
                    if (!meldThread) {
                        meld.nudgeIfHolding();
                    }
                    continue;
                }
                processBlock(b);
                intake.recycle(b);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            if (!ctx.closed()) {
                LOG.error("server {}: the log reader stopped", ctx.serverId(), e);
                ctx.fail("log reader error: " + e);
            }
        }
    }

    private void processBlock(final LogIntake.Block b) {
        blockView.wrap(b.bytes);
        processBlock(b.position, blockView, b.receivedNanos);
    }

    /**
     * One block, in log order: on the reader thread, or on the log subscription's own thread when intake delivers
     * directly ({@link LogIntake#subscribeDirect}). {@code block} is read only during the call.
     */
    void processBlock(final long position, final DirectBuffer block, final long deliveredNanos) {
        if (position == 0) {
            return;
        }
        blockDeliveredNanos = deliveredNanos;
        blockReadNanos = System.nanoTime();
        demux.onBlock(block, 0, position);
        emit(new BlockEnd(position));
        final long every = ctx.config().checkpointEvery();
        if (every > 0 && (csn - lastCheckpointCsn >= every || memoryCheckpointDue())) {
            // a checkpoint needs a block boundary and an empty meld stage: the reader waits for it, then decodes
            // on into the new generation
            final CheckpointMarker marker = new CheckpointMarker(position, demux.resumePosition(position + 1),
                ctx.fences().copy(), csn);
            emit(marker);
            if (awaitCheckpoint(marker)) {
                lastCheckpointCsn = csn;
            }
        }
    }

    /** Whether the current generation has grown enough to compact (see {@code TxnServerConfig.checkpointBytes}). */
    private boolean memoryCheckpointDue() {
        final long bytes = ctx.config().checkpointBytes();
        if (bytes <= 0 || csn == lastCheckpointCsn) {
            return false;
        }
        return ctx.state().current().compactionDue(bytes);
    }

    private boolean awaitCheckpoint(final CheckpointMarker marker) {
        while (!marker.result.isDone()) {
            if (ctx.stopped()) {
                return false;
            }
            try {
                marker.result.get(10, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                // check for shutdown and wait on
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (ExecutionException e) {
                return false;
            }
        }
        return marker.result.getNow(false);
    }

    private void onRecord(final DirectBuffer buffer, final int offset, final int length, final long position) {
        if (position <= skipThrough || length < 1) {
            return;
        }
        final byte type = buffer.getByte(offset);
        if (type == LogRecords.INTENTION) {
            onIntention(buffer, offset, length, position);
        } else if (type == LogRecords.FENCE
                && (length == LogRecords.FENCE_LENGTH || length == LogRecords.FOREIGN_FENCE_LENGTH)) {
            final int server = buffer.getInt(offset + 1, LogRecords.ORDER);
            ctx.fences().record(server, position);
            demux.resync(server);
            final long incarnation = ctx.incarnation();
            if (server == ctx.serverId() && position > incarnation && ctx.ready()) {
                // another server fenced this one off to decide one of its transactions (or a fence append of this
                // server timed out and landed late): every later record of this incarnation is rejected, so start
                // a new one (ignored while a re-fence is under way; the healer checks again when done)
                ctx.streamBroken(incarnation, length == LogRecords.FOREIGN_FENCE_LENGTH
                    ? "fenced off at log position " + position + " by incarnation "
                        + buffer.getLong(offset + LogRecords.FENCE_LENGTH, LogRecords.ORDER)
                    : "a fence of this server at log position " + position + " that it did not adopt");
            }
        } else if (type == LogRecords.CHECKPOINT) {
            ctx.metrics().checkpointChunkSeen();
        } else {
            ctx.metrics().recordDropped();
            LOG.warn("log record at {} of type {} and {} bytes is not a MeldDB record; skipped", position, type,
                length);
        }
    }

    private void onIntention(final DirectBuffer buffer, final int offset, final int length, final long position) {
        final long c = ++csn;
        if (length == LogRecords.INTENTION_HEADER) {
            emit(new Rejection(c, 0, 0, 0, Rejection.NUDGE));
            return;
        }
        if (length < LogRecords.INTENTION_HEADER) {
            emit(new Rejection(c, 0, 0, 0, "malformed"));
            return;
        }
        final int server = LogRecords.serverId(buffer, offset);
        final long inc = LogRecords.incarnation(buffer, offset);
        final long seq = LogRecords.sequence(buffer, offset);
        ctx.seen().put(new TxnId(inc, seq), Boolean.TRUE);
        final OwnIntentions.Held own = server == ctx.serverId() ? ctx.ownIntentions().take(inc, seq) : null;
        final Long newest = ctx.fences().newestOrNull(server);
        if (newest != null && newest > inc) {
            release(own);
            emit(new Rejection(c, server, inc, seq, "origin_restarted"));
            return;
        }
        final long snapshotCsn = IntentionDecoder.snapshotCsnOf(buffer, offset + LogRecords.INTENTION_HEADER);
        if (c - snapshotCsn > ctx.cluster().maxSnapshotAge()) {
            // its snapshot may be older than every state a checkpoint keeps: every server aborts it alike
            release(own);
            snapshotsTooOld++;
            emit(new Rejection(c, server, inc, seq, "snapshot_too_old"));
            return;
        }
        final IntentionMessage m = new IntentionMessage(c, server, inc, seq, snapshotCsn, position);
        m.deliveredNanos = blockDeliveredNanos;
        m.readNanos = blockReadNanos;
        if (own != null && adopt(own, m)) {
            toPremeld(m);
            emit(m);
            return;
        }
        if (links.toDecoders.length > 0) {
            final int worker = (int) (c % links.toDecoders.length);
            m.recordLength = length - LogRecords.INTENTION_HEADER;
            m.record = links.recordBuffer(worker, m.recordLength);
            buffer.getBytes(offset + LogRecords.INTENTION_HEADER, m.record, 0, m.recordLength);
            links.handOff(links.toDecoders[worker], links.decodeIdlers[worker], m);
            toPremeld(m);
            emit(m);
            return;
        }
        // its pointers name nodes of its snapshot, which exist once meld has produced that state
        links.awaitMelded(snapshotCsn, links.readerIdler);
        try {
            m.intention = ctx.state().current().decoder().decode(buffer, offset + LogRecords.INTENTION_HEADER,
                length - LogRecords.INTENTION_HEADER, c, new Intention());
        } catch (IntentionFormatException e) {
            LOG.warn("intention csn {} at log position {} is malformed: {}", c, position, e.getMessage());
            emit(new Rejection(c, server, inc, seq, "malformed"));
            return;
        }
        ctx.metrics().intentionRead(m.intention.nodeCount());
        m.decodedNanos = System.nanoTime();
        m.decoded = true;
        toPremeld(m);
        emit(m);
    }

    /**
     * Melds this server's own intention from the tree its session built (meld paper App. E) instead of handing its
     * bytes to a deserializer: a copy made for this CSN, field for field what decoding the record gives
     * ({@link io.meldb.core.IntentionCopier}). Only while the session's snapshot lies in the generation being
     * melded (a checkpoint since then moved the state to new memory: the record is decoded as any other).
     * Answers false, having released the tree, when it did not adopt.
     */
    private boolean adopt(final OwnIntentions.Held own, final IntentionMessage m) {
        final Generation current = ctx.state().current();
        try {
            if (own.generation() != current) {
                return false;
            }
            m.intention = current.copier().copy(own.txn(), m.csn, own.intentionFlags(), new Intention());
        } finally {
            own.release();
        }
        ctx.metrics().intentionRead(m.intention.nodeCount());
        ctx.metrics().intentionAdopted();
        m.decodedNanos = System.nanoTime();
        m.decoded = true;
        return true;
    }

    private static void release(final OwnIntentions.Held own) {
        if (own != null) {
            own.release();
        }
    }

    private void toPremeld(final IntentionMessage m) {
        if (links.toPremelds.length > 0) {
            final int slot = (int) (m.csn % links.toPremelds.length);
            links.handOff(links.toPremelds[slot], links.premeldIdlers[slot], m);
        }
    }

    /** Hands a message to the meld stage: queued for its thread, or run right here when they share one. */
    private void emit(final PipelineMessage message) {
        if (!meldThread) {
            meld.handle(message);
            return;
        }
        links.handOff(links.toMeld, links.meldIdler, message);
    }

    long blocksDropped() {
        return demux.blocksDropped();
    }

    long snapshotsTooOld() {
        return snapshotsTooOld;
    }
}
