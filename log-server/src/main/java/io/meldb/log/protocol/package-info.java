/**
 * The log service's wire protocol (Hyder II §5.1: append a block, read a position; plus tail, trim, subscribe):
 * binary, length-prefixed frames with a magic, a version and a request id, pipelined in both directions.
 * {@link io.meldb.log.protocol.LogProtocol} draws the layout; {@link io.meldb.log.protocol.LogFrameDecoder} and
 * {@link io.meldb.log.protocol.LogFrameEncoder} are the Netty codec shared by server and client.
 */
package io.meldb.log.protocol;
