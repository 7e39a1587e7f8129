/**
 * The client side of a txn-server (Hyder II §5.2): sessions running transactions on pinned snapshots, their pooled
 * workspaces, the intention appender (this server's block stream and its fences), and outcome queries.
 */
package io.meldb.txn.session;
