package io.meldb.txn.checkpoint;

import io.meldb.core.MeldPipeline;

/**
 * Counters of the meld pipeline (Hyder II §3-4: premeld, group meld, final meld) summed over memory generations:
 * each generation has a pipeline of its own, and a compaction adds the retiring one's counts here.
 */
public final class MeldTotals {
    private long finalMelds;
    private long ephemerals;
    private long groupsFormed;
    private long groupsFallenBack;
    private long premelds;
    private long premeldNodes;
    private long groupNodes;
    private long finalNodes;

    void add(final MeldPipeline p) {
        finalMelds += p.finalMelds();
        ephemerals += p.ephemeralsCreated();
        groupsFormed += p.groupsFormed();
        groupsFallenBack += p.groupsFallenBack();
        premelds += p.premelds();
        premeldNodes += p.premeldNodesVisited();
        groupNodes += p.groupNodesVisited();
        finalNodes += p.finalNodesVisited();
    }

    /** These totals plus the live counts of {@code current}, as a new object. */
    MeldTotals plus(final MeldPipeline current) {
        final MeldTotals t = new MeldTotals();
        t.add(current);
        t.finalMelds += finalMelds;
        t.ephemerals += ephemerals;
        t.groupsFormed += groupsFormed;
        t.groupsFallenBack += groupsFallenBack;
        t.premelds += premelds;
        t.premeldNodes += premeldNodes;
        t.groupNodes += groupNodes;
        t.finalNodes += finalNodes;
        return t;
    }

    public long finalMelds() {
        return finalMelds;
    }

    public long ephemeralsCreated() {
        return ephemerals;
    }

    public long groupsFormed() {
        return groupsFormed;
    }

    public long groupsFallenBack() {
        return groupsFallenBack;
    }

    public long premelds() {
        return premelds;
    }

    public long premeldNodesVisited() {
        return premeldNodes;
    }

    public long groupNodesVisited() {
        return groupNodes;
    }

    public long finalNodesVisited() {
        return finalNodes;
    }
}
