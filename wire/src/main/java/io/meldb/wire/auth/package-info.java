/**
 * Authentication of the cluster's internal connections (the log port and the transaction RPC port): a shared
 * cluster secret proven by an HMAC-SHA256 challenge-response in both directions before the first request.
 */
package io.meldb.wire.auth;
