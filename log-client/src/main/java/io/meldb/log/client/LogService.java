package io.meldb.log.client;

import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * What a transaction server needs of the shared log (Hyder II §5.1: append a block and learn its position, read a
 * position, consume the log from a position on), whether the log is reached over the network ({@link LogClient})
 * or lives in the same process ({@code io.meldb.log.server.InProcessLog}, the embedded database's path without a socket).
 *
 * <p>Both implementations keep the same semantics: dense positions, block 0 holds the cluster meld configuration
 * given to {@link #create}, a trimmed position answers {@link ErrorCode#TRIMMED}, a subscription delivers each
 * position once and in order, and appends beyond the implementation's in-flight limit wait (up to its request
 * timeout) instead of queueing unbounded memory. Futures may complete on the implementation's own threads, so
 * callbacks chained onto them must not block.
 */
public interface LogService extends AutoCloseable {

    /**
     * Creates the log with this block size and cluster configuration (stored at position 0). Succeeds again,
     * changing nothing, if the log already exists with the same two; fails with
     * {@link ErrorCode#CREATE_MISMATCH} if it exists with others.
     */
    CompletableFuture<Void> create(int blockSize, byte[] config);

    /** Appends a block (exactly the log's block size); completes with its position. */
    CompletableFuture<Long> append(byte[] block);

    /**
     * Appends the block in {@code block}'s readable bytes (exactly the log's block size), taking ownership of the
     * buffer: the log releases it, once, as soon as it no longer reads it (written to storage or sent; or refused),
     * which may be before the returned future completes. A caller appending from a {@link BlockBufferPool} thus
     * reuses its block buffers. Completes with the block's position.
     */
    CompletableFuture<Long> append(ByteBuf block);

    /**
     * Reads up to {@code count} blocks from {@code position}. The answer may hold fewer (never past the tail); read
     * again from where it ended. Fails with {@link LogErrorException} ({@link ErrorCode#TRIMMED},
     * {@link ErrorCode#PAST_TAIL}, ...) if not even the first block can be read.
     */
    CompletableFuture<List<byte[]>> read(long position, int count);

    /** The configuration given to {@link #create} (decoded from position 0). */
    CompletableFuture<byte[]> config();

    /** Tail, trim point, block size and log id. */
    CompletableFuture<LogStatus> status();

    /** The next position to be written. */
    default CompletableFuture<Long> tail() {
        return status().thenApply(LogStatus::tail);
    }

    /** Releases positions below {@code position} (meld paper App. B); completes with the trim point in force. */
    CompletableFuture<Long> trim(long position);

    /**
     * Delivers every block from {@code from} on, in order, to {@code listener} on a thread of the implementation's,
     * now and as the log grows, until the subscription is closed or ends with an error the listener is told of.
     */
    Subscription subscribe(long from, BlockListener listener);

    /**
     * Whether each subscription delivers on a thread of its own that serves nothing else, so that its listener may
     * take long or wait (for example run the reader's whole pipeline in line) without holding up appends, reads or
     * other subscriptions. False for {@link LogClient}, whose subscriptions deliver on a network I/O thread.
     */
    default boolean deliversOnOwnThread() {
        return false;
    }

    /** The id of the log this service is bound to; null until known (see {@link LogClient}). */
    UUID logId();

    /** Ends the subscriptions; requests made afterwards fail. */
    @Override
    void close();

    /** A running {@link #subscribe}: flow control and stop. */
    interface Subscription extends AutoCloseable {
        /** The next position the listener will receive. */
        long nextPosition();

        boolean isClosed();

        /** Stops delivering soon (at most what is already under way arrives); the log keeps the rest. */
        void pause();

        /** Delivers again after {@link #pause()}, from where it stopped. */
        void resume();

        /**
         * Stops the subscription; no block is delivered after this returns, unless it is called from the listener
         * itself, which then returns without waiting.
         */
        @Override
        void close();
    }
}
