package io.meldb.log;

import io.netty.buffer.ByteBuf;

import java.util.UUID;

/**
 * Storage of the shared log (Hyder II §5.1): fixed-size blocks at dense positions, append, random read, trim
 * (meld paper App. B). The server is a thin network layer over this interface, and the append benchmark drives
 * it directly to measure the ceiling the network path is compared with.
 *
 * <p>Threading: {@link #append} may be called from any thread and completes asynchronously on the store's
 * writer thread; {@link #tail()}, {@link #trimPoint()} and {@link #blockSize()} are safe anywhere; a
 * {@link LogReader} belongs to the thread that opened it.
 *
 * <p>Visibility: a position is readable ({@code < tail()}) only once its append has been acknowledged, so a
 * reader never sees a block that a crash could still take away.
 */
public interface LogStore extends AutoCloseable {

    /** Position of the configuration block written by {@link #create}. */
    long CONFIG_POSITION = 0;

    /**
     * Creates the log: fixes the block size and writes {@code config} (the cluster meld configuration) into the
     * block at position 0. Idempotent: the same arguments again succeed and change nothing.
     *
     * @throws LogErrorException {@link ErrorCode#CREATE_MISMATCH} if the log exists with another block size or
     *                           configuration, {@link ErrorCode#BAD_ARGUMENT} if the block size is out of range or
     *                           the configuration does not fit into one block
     */
    void create(int blockSize, byte[] config);

    /** True once {@link #create} has succeeded (now or in an earlier run). */
    boolean isCreated();

    /**
     * The log's identity, drawn at random when it was created (null before): two logs created alike are still told
     * apart, so that a client reconnecting to a server that now holds another log notices.
     */
    UUID logId();

    /** The block size fixed at creation, or 0 before. */
    int blockSize();

    /** The configuration bytes given to {@link #create}, or {@code null} before. */
    byte[] config();

    /**
     * Appends one block. The store takes ownership of {@code block} and hands it to
     * {@link AppendCallback#blockDone} once stored or refused.
     * {@code callback} runs on the writer thread after the block is stored with the configured
     * {@link Durability}, with the block's position; or with {@link ErrorCode#BLOCK_SIZE},
     * {@link ErrorCode#NOT_CREATED}, {@link ErrorCode#STORAGE_FAILURE} or {@link ErrorCode#SHUTTING_DOWN}.
     * Callbacks must be short: they delay the next batch.
     */
    void append(ByteBuf block, AppendCallback callback);

    /** The next position to be written; every position below it (and at or above the trim point) is readable. */
    long tail();

    /** Positions {@code [1, trimPoint())} have been released; 1 if nothing was trimmed. */
    long trimPoint();

    /**
     * Releases positions {@code [1, position)}: they answer {@link ErrorCode#TRIMMED} from now on (also after a
     * restart), and queue files holding only such positions are deleted. Trimming to a point at or below the
     * current trim point changes nothing.
     *
     * @return the trim point now in force
     * @throws LogErrorException {@link ErrorCode#PAST_TAIL} if {@code position > tail()}
     */
    long trim(long position);

    /** Opens a reader confined to the calling thread. */
    LogReader openReader();

    /** The error that made the store stop accepting appends (it needs a restart), or {@code null} while healthy. */
    LogErrorException failure();

    /**
     * The refusal ({@link ErrorCode#STORAGE_FULL}) in force while the log's disk has less free space than the store
     * keeps in reserve, or {@code null}; appends are accepted again once space is freed, without a restart.
     */
    LogErrorException diskFull();

    /** Free bytes on the disk holding the log. */
    long freeSpace();

    /** Registers a listener told (on the writer thread) whenever the tail advances. */
    void addTailListener(TailListener listener);

    void removeTailListener(TailListener listener);

    /** Stops the writer (pending appends fail with {@link ErrorCode#SHUTTING_DOWN}) and closes the files. */
    @Override
    void close();

    /** Completion of one {@link #append}. */
    interface AppendCallback {
        void appended(long position);

        void failed(LogErrorException error);

        /**
         * The store no longer needs {@code block}: stored, or about to be refused. Called exactly once per append,
         * before {@link #appended} or {@link #failed}, on the thread that is done with it. The default releases it at
         * once; a caller whose buffers come from a pooling allocator may keep it and release it on the thread that
         * allocated it, which is cheaper for the pool than a release on the store's writer thread.
         */
        default void blockDone(ByteBuf block) {
            block.release();
        }
    }

    /**
     * Told after a batch of appends became readable, on the writer thread, after the batch's
     * {@link AppendCallback#appended} calls: a listener may act on everything those callbacks recorded.
     */
    @FunctionalInterface
    interface TailListener {
        void tailAdvanced(long newTail);
    }
}
