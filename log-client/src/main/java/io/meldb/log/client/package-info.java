/**
 * The client library of the log service, used by transaction servers (Hyder II §5.1: append a block, get its
 * position; read a position; and every server's log reader consumes the log as a subscription).
 * {@link io.meldb.log.client.LogClient} is the entry point.
 */
package io.meldb.log.client;
