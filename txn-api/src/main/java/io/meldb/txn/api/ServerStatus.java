package io.meldb.txn.api;

/**
 * @param csn       CSN of the last committed state (intentions melded so far)
 * @param stateHash {@link io.meldb.core.StateHash} of that state; equal on every server at the same CSN
 * @param inFlight  transactions currently open on this server
 */
public record ServerStatus(int serverId, long incarnation, long csn, long stateHash, int inFlight) {
}
