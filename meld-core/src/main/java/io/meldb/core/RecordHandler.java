package io.meldb.core;

import org.agrona.DirectBuffer;

/**
 * Receives each record a {@link BlockReader} reassembles from intention blocks (Hyder II §5.1). The buffer is
 * only valid during the call: it is the block itself or the reader's reused reassembly buffer.
 */
@FunctionalInterface
public interface RecordHandler {
    /**
     * @param position log position of the block holding the record's last byte: an intention's position in the
     *                 log is that of the block holding its end (Hyder II §5.1)
     */
    void onRecord(DirectBuffer buffer, int offset, int length, long position);
}
