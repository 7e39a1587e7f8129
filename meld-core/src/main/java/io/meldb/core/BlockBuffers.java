package io.meldb.core;

/**
 * Where a {@link BlockWriter} frames its blocks (Hyder II §5.1): a server whose log takes ownership of each appended
 * block gives the writer a fresh buffer per block (from a pool the log gives them back to), so the block the writer
 * fills is the one the log stores, with no copy in between.
 */
@FunctionalInterface
public interface BlockBuffers {
    /**
     * The array the next block is framed in, at offset 0, at least one block long. Asked once per block, just before
     * its first byte is written; the writer does not touch it again after handing the block to its {@link BlockSink}.
     */
    byte[] next();
}
