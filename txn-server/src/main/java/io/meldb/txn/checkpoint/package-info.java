/**
 * Checkpoints and memory generations (meld paper App. A-B): the committed-state handle sessions pin, serializing
 * and compacting into a new generation, and appending checkpoints to the log and trimming it.
 */
package io.meldb.txn.checkpoint;
