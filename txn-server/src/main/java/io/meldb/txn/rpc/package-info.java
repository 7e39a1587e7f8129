/**
 * The transaction RPC (docs/architecture.md "txn RPC"): the {@link io.meldb.txn.api.TxnService} interface carried over Netty, so
 * a gateway or a key-value client in another process talks to a transaction server exactly as it would in-process.
 * {@link io.meldb.txn.protocol.TxnRpcProtocol} draws the frame layout (modelled on the log protocol);
 * {@link io.meldb.txn.rpc.TxnRpcServer} serves any {@code TxnService}; {@link io.meldb.txn.client.TxnRpcClient} is a
 * {@code TxnService} whose sessions run by RPC.
 */
package io.meldb.txn.rpc;
