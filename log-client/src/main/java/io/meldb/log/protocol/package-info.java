/**
 * The log service's wire protocol (Hyder II §5.1: append a block, read a position; plus tail, trim, subscribe):
 * binary, length-prefixed frames with a magic, a version and a request id, pipelined in both directions.
 * {@link io.meldb.wire.FrameFormat} draws the framing, which the transaction RPC shares with its own magic;
 * {@link io.meldb.wire.FrameDecoder} and {@link io.meldb.wire.FrameEncoder} are its Netty codec,
 * {@link io.meldb.wire.FrameServerHandler} the connection policy of its servers.
 * {@link io.meldb.log.protocol.LogProtocol} lists the log protocol's frame types and bodies;
 * {@link io.meldb.log.protocol.LogFrameDecoder} and {@link io.meldb.log.protocol.LogFrameEncoder} are its codec.
 */
package io.meldb.log.protocol;
