package io.meldb.txn.pipeline;

import io.meldb.txn.ServerContext;

/**
 * A premeld thread (Hyder II §3, Algorithm 1). Thread: "meldb-premeld-N-s". Receives from the reader the
 * intentions of its slot (csn mod t = s), in log order; premelds each against state csn - t*d - 1 as soon as meld
 * has decided that far and a deserializer thread has decoded it, while final meld works on earlier intentions.
 * Publishes the premelded intention on the message ({@link IntentionMessage#premeldDone}) and wakes the meld thread.
 */
final class PremeldStage {
    private final ServerContext ctx;
    private final StageLinks links;
    private final int slot;
    private final StageIdler idler;
    private final long reach;

    PremeldStage(final ServerContext ctx, final StageLinks links, final int slot) {
        this.ctx = ctx;
        this.links = links;
        this.slot = slot;
        this.idler = links.premeldIdlers[slot];
        this.reach = ctx.cluster().meldConfig().premeldLag();
    }

    void run() {
        links.run("premeld thread " + slot, links.toPremelds[slot], idler, links.readerIdler, this::premeld, null);
    }

    private void premeld(final IntentionMessage m) {
        links.awaitMelded(m.csn - reach, idler);
        links.awaitDecoded(m, idler);
        m.premelded = m.malformed ? null : ctx.state().current().pipeline().premeldAhead(m.intention);
        m.premeldDone = true;
        links.meldIdler.wake();
    }
}
