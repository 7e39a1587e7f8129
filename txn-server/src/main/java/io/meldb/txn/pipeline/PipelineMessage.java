package io.meldb.txn.pipeline;

/**
 * What the log reader hands to the meld stage, in log order (Hyder II §5.2): an intention to meld
 * ({@link IntentionMessage}), one every replica rejects before meld ({@link Rejection}), the end of a log block
 * ({@link BlockEnd}), or a checkpoint point ({@link CheckpointMarker}). One type per kind, so each carries only
 * what its kind needs; the meld stage dispatches on the type.
 */
public abstract sealed class PipelineMessage permits Decidable, BlockEnd, CheckpointMarker {
}
