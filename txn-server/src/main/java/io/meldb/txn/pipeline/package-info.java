/**
 * A txn-server's meld pipeline (Hyder II §3-5; docs/architecture.md "Data flow of one update transaction"): log intake, the
 * reader, deserializer, premeld, meld and reply stages, one class each, and the typed messages that pass between
 * them. {@link io.meldb.txn.pipeline.Pipeline} assembles them.
 */
package io.meldb.txn.pipeline;
