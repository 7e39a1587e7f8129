/**
 * The shared log of MeldDB: a totally ordered sequence of fixed-size intention blocks that every transaction
 * server appends to and reads from (Hyder II §5.1, "log service"; docs/architecture.md "The log is the database").
 *
 * <p>This package holds the API shared by the server, the storage engine and the client library: the storage
 * contract {@link io.meldb.log.LogStore} with its {@link io.meldb.log.LogReader}, the error codes every layer
 * answers with, and the exceptions the client surfaces. Implementations live below:
 * {@code storage} (Chronicle Queue), {@code protocol} (the binary frame format and its Netty codec),
 * {@code server} (the Netty server, metrics, the {@code log-server} command) and {@code client}
 * ({@code LogClient}).
 *
 * <p>Positions: position 0 holds the configuration block written by CREATE (the cluster meld configuration);
 * appended blocks get positions 1, 2, 3, ... densely, in the order the log stores them, and a position is
 * never reused. Trimming (meld paper App. B) releases positions {@code [1, trimPoint)}; position 0 stays
 * readable so that a server joining later can still check the cluster configuration.
 */
package io.meldb.log;
