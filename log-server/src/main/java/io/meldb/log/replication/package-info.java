/**
 * The shared log replicated with Apache Ratis (issue 22, docs/log-replication.md): at {@code --replication-factor}
 * &gt; 1 a log server is one Raft member ({@link io.meldb.log.replication.RaftReplica}) whose state machine is its
 * block store ({@link io.meldb.log.replication.BlockStoreStateMachine}), and the request handler serves a
 * {@link io.meldb.log.replication.ReplicatedLogStore}: appends batched into Raft entries through the leader, reads
 * from the replica's applied store.
 */
package io.meldb.log.replication;
