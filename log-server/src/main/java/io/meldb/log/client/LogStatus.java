package io.meldb.log.client;

/** Answer to TAIL (log service, Hyder II §5.1; trim point: meld paper App. B): the next position to be written, the trim point and the log's block size (0 if not created). */
public record LogStatus(long tail, long trimPoint, int blockSize) {
}
