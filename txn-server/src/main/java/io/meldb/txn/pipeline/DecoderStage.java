package io.meldb.txn.pipeline;

import io.meldb.core.Intention;
import io.meldb.core.IntentionFormatException;
import io.meldb.txn.ServerContext;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A deserializer thread (Hyder II §5.2). Thread: "meldb-decode-N-i". Receives from the reader the intentions with
 * csn mod N = i, in log order; decodes each into its own arena of the current memory generation once meld has
 * produced the state its snapshot names. Publishes the decoded intention on the message itself
 * ({@link IntentionMessage#decoded}) and wakes the meld thread and the premeld thread of its slot, which wait for it.
 */
final class DecoderStage {
    private static final Logger LOG = LoggerFactory.getLogger(DecoderStage.class);

    private final ServerContext ctx;
    private final StageLinks links;
    private final int worker;
    private final StageIdler idler;
    /** Views the record being decoded (decoding copies it into the arena, so its buffer goes back at once). */
    private final UnsafeBuffer recordView = new UnsafeBuffer(new byte[0]);

    DecoderStage(final ServerContext ctx, final StageLinks links, final int worker) {
        this.ctx = ctx;
        this.links = links;
        this.worker = worker;
        this.idler = links.decodeIdlers[worker];
    }

    void run() {
        links.run("deserializer thread " + worker, links.toDecoders[worker], idler, links.readerIdler, this::decode,
            null);
    }

    private void decode(final IntentionMessage m) {
        links.awaitMelded(m.snapshotCsn, idler);
        try {
            recordView.wrap(m.record, 0, m.recordLength);
            m.intention = ctx.state().current().workerDecoder(worker).decode(recordView, 0, m.recordLength, m.csn,
                new Intention());
            ctx.metrics().intentionRead(m.intention.nodeCount());
        } catch (IntentionFormatException e) {
            LOG.warn("intention csn {} at log position {} is malformed: {}", m.csn, m.position, e.getMessage());
            m.malformed = true;
        }
        links.recycleRecord(worker, m.record);
        m.record = null;
        m.decodedNanos = System.nanoTime();
        m.decoded = true;
        // the meld thread, and the premeld thread of the message's slot, may wait for it
        links.meldIdler.wake();
        if (links.premeldIdlers.length > 0) {
            links.premeldIdlers[(int) (m.csn % links.premeldIdlers.length)].wake();
        }
    }
}
