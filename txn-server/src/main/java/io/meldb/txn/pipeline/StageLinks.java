package io.meldb.txn.pipeline;

import io.meldb.txn.ServerContext;
import org.agrona.concurrent.OneToOneConcurrentArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The queues and idlers that connect the pipeline's stages (Hyder II §5.2-5.3), and the waits they share. Every
 * hand-over is a one-producer, one-consumer Agrona queue, preallocated, so handing over allocates nothing. A stage
 * thread with nothing to do idles on its {@link StageIdler} (spin, yield, then park until the thread that makes
 * work for it wakes it).
 */
final class StageLinks {
    private static final Logger LOG = LoggerFactory.getLogger(StageLinks.class);
    /** Record buffers kept per deserializer thread; more in flight at once are allocated and dropped. */
    static final int RECORDS_KEPT = 256;
    /** Larger records (rare large transactions) get a buffer of their own that is not kept. */
    static final int MAX_POOLED_RECORD = 1 << 20;

    final ServerContext ctx;
    final StageIdler readerIdler = new StageIdler();
    /** The meld stage's idler: the reader's own when they share a thread. */
    final StageIdler meldIdler;
    final StageIdler replyIdler = new StageIdler();
    final StageIdler[] decodeIdlers;
    final StageIdler[] premeldIdlers;
    /** Reader to meld thread (only with a separate meld thread). */
    final OneToOneConcurrentArrayQueue<PipelineMessage> toMeld = new OneToOneConcurrentArrayQueue<>(4096);
    /** Reader to deserializer thread csn mod N. */
    final OneToOneConcurrentArrayQueue<IntentionMessage>[] toDecoders;
    /** Reader to premeld thread csn mod t. */
    final OneToOneConcurrentArrayQueue<IntentionMessage>[] toPremelds;
    /**
     * Deserializer thread i back to the reader: record buffers it has decoded, for the reader to copy the next
     * records into (the copy was most of the txn-server's allocation per commit).
     */
    final OneToOneConcurrentArrayQueue<byte[]>[] recordsBack;
    /** Meld thread to reply thread: decided intentions. */
    final OneToOneConcurrentArrayQueue<Decidable> toReply = new OneToOneConcurrentArrayQueue<>(8192);

    @SuppressWarnings("unchecked")
    StageLinks(final ServerContext ctx, final boolean meldThread, final int decoders, final int premelds) {
        this.ctx = ctx;
        // every idler exists before any stage thread starts: each wakes the others
        this.meldIdler = meldThread ? new StageIdler() : readerIdler;
        this.decodeIdlers = newIdlers(decoders);
        this.premeldIdlers = newIdlers(premelds);
        this.toDecoders = new OneToOneConcurrentArrayQueue[decoders];
        this.toPremelds = new OneToOneConcurrentArrayQueue[premelds];
        this.recordsBack = new OneToOneConcurrentArrayQueue[decoders];
        for (int i = 0; i < decoders; i++) {
            toDecoders[i] = new OneToOneConcurrentArrayQueue<>(4096);
            recordsBack[i] = new OneToOneConcurrentArrayQueue<>(RECORDS_KEPT);
        }
        for (int i = 0; i < premelds; i++) {
            toPremelds[i] = new OneToOneConcurrentArrayQueue<>(4096);
        }
    }

    /**
     * Reader thread: a buffer of at least {@code length} bytes for a record to deserializer thread {@code worker},
     * one it gave back if it fits, else a new one (sized to the next power of two, so that records of varying
     * length reuse it).
     */
    byte[] recordBuffer(final int worker, final int length) {
        final byte[] back = recordsBack[worker].poll();
        if (back != null && back.length >= length) {
            return back;
        }
        return new byte[length > MAX_POOLED_RECORD ? length : Math.max(1024, Integer.highestOneBit(length - 1) << 1)];
    }

    /** Deserializer thread {@code worker}: done with {@code record}; the reader may reuse it (or it is dropped). */
    void recycleRecord(final int worker, final byte[] record) {
        if (record.length <= MAX_POOLED_RECORD) {
            recordsBack[worker].offer(record);
        }
    }

    private static StageIdler[] newIdlers(final int count) {
        final StageIdler[] idlers = new StageIdler[count];
        for (int i = 0; i < count; i++) {
            idlers[i] = new StageIdler();
        }
        return idlers;
    }

    /** Wakes every stage thread, to notice that the server stopped or failed. */
    void wakeAll() {
        readerIdler.wake();
        meldIdler.wake();
        replyIdler.wake();
        StageIdler.wakeAll(decodeIdlers);
        StageIdler.wakeAll(premeldIdlers);
    }

    /** Reader thread: queues a message for a stage thread and wakes it; waits (woken by it) while the queue is full. */
    <T> void handOff(final OneToOneConcurrentArrayQueue<T> queue, final StageIdler consumer, final T message) {
        while (!queue.offer(message)) {
            if (ctx.stopped()) {
                throw new IllegalStateException("a pipeline stage stopped");
            }
            readerIdler.idle();
        }
        readerIdler.reset();
        consumer.wake();
    }

    /** Waits until meld has published the state at {@code csn}; the meld stage wakes the waiting threads. */
    void awaitMelded(final long csn, final StageIdler idler) {
        while (ctx.state().meldedCsn() < csn) {
            if (ctx.stopped()) {
                throw new IllegalStateException("the meld stage stopped");
            }
            idler.idle();
        }
        idler.reset();
    }

    /** Meld or premeld thread: waits for a deserializer thread, which wakes both when it has decoded the message. */
    void awaitDecoded(final IntentionMessage m, final StageIdler idler) {
        while (!m.decoded) {
            if (ctx.stopped()) {
                throw new IllegalStateException("the decode stage stopped");
            }
            idler.idle();
        }
        idler.reset();
    }

    /**
     * The loop of every stage thread: takes the stage's messages in order, idling on {@code idler} when there are
     * none, and waking the producer, which may wait for room in the queue, after each one it takes. {@code whenIdle},
     * if any, runs at every idle step and returns how long the thread may park. An error stops the server, as any
     * pipeline error does.
     */
    <T> void run(final String stage, final OneToOneConcurrentArrayQueue<T> queue, final StageIdler idler,
                 final StageIdler producer, final Consumer<T> step, final LongSupplier whenIdle) {
        try {
            while (!ctx.stopped()) {
                final T message = queue.poll();
                if (message == null) {
                    idler.idle(whenIdle == null ? StageIdler.MAX_PARK_NANOS : whenIdle.getAsLong());
                    continue;
                }
                idler.reset();
                producer.wake();
                step.accept(message);
            }
        } catch (RuntimeException | Error e) {
            if (!ctx.closed()) {
                LOG.error("server {}: {} stopped", ctx.serverId(), stage, e);
                ctx.fail(stage + " error: " + e);
            }
        }
    }
}
