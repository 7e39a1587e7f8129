package io.meldb.log.server;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Blocks holding the last chunk of a txn-server checkpoint in the layout {@link CheckpointCeiling} reads (the
 * txn-server's own checkpoints are checked against it in the txn-server's CheckpointTrimTest): what log-server tests
 * append before they may TRIM.
 */
public final class TestCheckpoints {
    private TestCheckpoints() {
    }

    /** The last chunk of a checkpoint resuming at {@code resume}, with {@code chunkBytes} of node data, in blocks. */
    public static List<byte[]> lastChunk(int blockSize, int writer, long resume, int chunkBytes) {
        ByteBuffer manifest = ByteBuffer.allocate(4 + 8 + 4 + 8 + 8 + 8 + 4).order(ByteOrder.BIG_ENDIAN);
        manifest.putInt(1).putLong(10).putInt(1).putLong(0).putLong(resume - 1).putLong(resume).putInt(0);
        int recordLength = CheckpointCeiling.CHECKPOINT_HEADER + chunkBytes + manifest.capacity();
        ByteBuffer stream = ByteBuffer.allocate(4 + recordLength).order(ByteOrder.LITTLE_ENDIAN);
        stream.putInt(recordLength).put(CheckpointCeiling.CHECKPOINT).putLong(77).putInt(0).put((byte) 1).putLong(0)
                .putInt(chunkBytes);
        for (int i = 0; i < chunkBytes; i++) {
            stream.put((byte) i);
        }
        stream.put(manifest.array());
        byte[] all = stream.array();
        List<byte[]> blocks = new ArrayList<>();
        int payload = blockSize - CheckpointCeiling.BLOCK_HEADER;
        for (int at = 0; at < all.length; at += payload) {
            int used = Math.min(payload, all.length - at);
            ByteBuffer b = ByteBuffer.allocate(blockSize).order(ByteOrder.LITTLE_ENDIAN);
            b.putInt(CheckpointCeiling.BLOCK_MAGIC).put((byte) 1).put((byte) 0).putShort((short) writer).putInt(used)
                    .putInt(at == 0 ? 0 : -1).putInt(0).put(all, at, used);
            blocks.add(b.array());
        }
        return blocks;
    }
}
