package io.meldb.txn;

/** One entry of a scan result. */
public record KeyValue(byte[] key, byte[] value) {
}
