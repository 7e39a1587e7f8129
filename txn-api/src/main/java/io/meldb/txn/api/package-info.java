/**
 * The transaction service as its users see it (Hyder II §5: a transaction runs against a snapshot and is decided by
 * meld): {@link io.meldb.txn.api.TxnService}, {@link io.meldb.txn.api.TxnSession}, outcomes and errors, the
 * isolation levels and {@link io.meldb.txn.api.TxnRetry}. Implemented in process by the txn-server and over the
 * network by txn-client's {@code TxnRpcClient}; see docs/txn-server.md.
 */
package io.meldb.txn.api;
