/**
 * The log server (Hyder II §5.1 log service): the Netty server speaking {@link io.meldb.log.protocol.LogProtocol}
 * over a {@link io.meldb.log.LogStore}, subscriptions with flow control, Prometheus metrics and health over HTTP,
 * and the {@code log-server} command ({@link io.meldb.log.server.LogServerMain}).
 */
package io.meldb.log.server;
