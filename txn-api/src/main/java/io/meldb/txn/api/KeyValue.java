package io.meldb.txn.api;

/** One entry of a scan result. */
public record KeyValue(byte[] key, byte[] value) {
}
