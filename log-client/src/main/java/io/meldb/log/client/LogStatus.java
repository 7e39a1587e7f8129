package io.meldb.log.client;

import java.util.UUID;

/**
 * Answer to TAIL (log service, Hyder II §5.1; trim point: meld paper App. B): the next position to be written, the
 * trim point, the log's block size (0 if not created) and its id (null if not created, or from a server that sends
 * none).
 */
public record LogStatus(long tail, long trimPoint, int blockSize, UUID logId) {
}
