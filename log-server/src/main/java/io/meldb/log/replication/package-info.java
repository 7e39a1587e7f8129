/**
 * The shared log replicated with Apache Ratis (issue 22, docs/log-replication.md): the log server's block store as
 * a Raft state machine. Only the state machine and its entries are built; no server or client uses them yet.
 */
package io.meldb.log.replication;
