/**
 * The log's storage on Chronicle Queue (Hyder II §5.1 log service; meld paper App. B trim).
 *
 * <p>One Chronicle excerpt per block ({@link io.meldb.log.storage.StoredBlock} layout: position, CRC32C,
 * block bytes); the log's own metadata (block size, configuration, trim point) lives beside the queue in
 * {@link io.meldb.log.storage.LogMeta}. {@link io.meldb.log.storage.ChronicleLogStore} is the only
 * {@link io.meldb.log.LogStore} implementation, a façade over one package-private class per role (position
 * index, writer, retention, disk guard; see docs/log-server.md, "Storage classes").
 */
package io.meldb.log.storage;
