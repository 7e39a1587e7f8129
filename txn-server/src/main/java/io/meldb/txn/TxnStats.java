package io.meldb.txn;

import io.meldb.txn.checkpoint.MeldTotals;

/**
 * A snapshot of a txn-server's counters and gauges that its meters read ({@link TxnMetrics}): the pipeline keeps
 * them in plain fields of its own threads, so the meters read a snapshot taken when scraped instead of calling into
 * the server per meter. Counters may lag the threads that keep them by a moment; none of them decides anything.
 */
public record TxnStats(MeldTotals meld, long generations, long meldThreadAllocatedBytes, long blocksDropped,
                       long snapshotsTooOld, int inFlight, long lcsCsn, long processedPosition, int inboxSize) {
}
