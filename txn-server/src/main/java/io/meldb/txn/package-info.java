/**
 * The transaction server (docs/architecture.md "txn-server"; Hyder II §5.2-5.3): client sessions that execute
 * transactions on snapshots and append their intentions, the log reader and meld pipeline that roll every
 * server's copy of the tree forward, checkpoints, recovery, admission control and metrics.
 */
package io.meldb.txn;
