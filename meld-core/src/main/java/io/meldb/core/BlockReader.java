package io.meldb.core;

import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.zip.CRC32C;

/**
 * Verifies intention blocks read from the log and reassembles the records in them (Hyder II §5.1–5.2, the log
 * reader that feeds the meld pipeline). Layout in {@link BlockFormat}.
 *
 * <p>A block is verified completely (size, magic, version, checksum, header bounds, zero tail, and that its
 * framing agrees with the record in progress) before anything in it is used: a rejected block throws
 * {@link CorruptBlockException} and leaves the reader exactly as it was, so the caller can fetch the block again
 * (from another replica) and carry on, or stop. To that end a block is walked twice: once on a scratch copy of the
 * reassembly state to validate, then for real to copy bytes and deliver records.
 *
 * <p>A record that lies inside one block is handed to the handler straight from the block; only a record that
 * spans blocks is copied, into one reused buffer. A record's position is that of the block holding its end, as
 * Hyder II defines an intention's log position. If the handler throws, the exception propagates and the reader is
 * {@link #reset()}: the rest of that block is dropped. Not thread-safe.
 */
public final class BlockReader {
    private final int blockSize;
    private final int capacity;
    private final RecordHandler handler;
    private final CRC32C crc = new CRC32C();
    /**
     * Past this capacity the assembly buffer is dropped once its record is delivered: a rare huge intention must
     * not pin hundreds of megabytes for the rest of the reader's life (steady-state records stay well below).
     */
    static final int ASSEMBLY_KEEP_BYTES = 8 << 20;
    private ExpandableDirectByteBuffer assembly = new ExpandableDirectByteBuffer(BlockFormat.DEFAULT_BLOCK_SIZE);
    /** Blocks not backed by a heap array are copied here once: CRC32C works on arrays, and reads stay local. */
    private final byte[] scratchArray;
    private final UnsafeBuffer scratch;
    private final State state = new State();
    private final State trial = new State();
    private long recordsDelivered;
    private boolean resync;

    public BlockReader(final int blockSize, final RecordHandler handler) {
        this.blockSize = BlockFormat.checkBlockSize(blockSize);
        this.capacity = BlockFormat.capacity(blockSize);
        if (handler == null) {
            throw new NullPointerException("handler");
        }
        this.handler = handler;
        this.scratchArray = new byte[blockSize];
        this.scratch = new UnsafeBuffer(scratchArray);
    }

    public int blockSize() {
        return blockSize;
    }

    /** Records handed to the handler so far. */
    public long recordsDelivered() {
        return recordsDelivered;
    }

    /** True if the last block ended inside a record, so the next block must continue it. */
    public boolean recordInProgress() {
        return state.inProgress;
    }

    /** Drops any partially reassembled record (for example to resume reading at another log position). */
    public void reset() {
        state.clear();
        resync = false;
    }

    /**
     * Joins a stream in the middle (recovery from a checkpoint): drops any record in progress, and the next block
     * is read from its first record start, skipping the tail of a record that began before it. A block in which
     * no record starts is skipped whole, and the reader stays in this mode until a record starts.
     */
    public void resync() {
        state.clear();
        resync = true;
    }

    /**
     * Verifies one block and delivers every record that ends in it.
     *
     * @param position the block's log position, used in error messages and passed on with each record
     * @throws CorruptBlockException if the block fails verification; the reader is then unchanged
     */
    public void onBlock(final DirectBuffer block, final int offset, final int length, final long position) {
        if (length != blockSize) {
            throw new CorruptBlockException(position, "length " + length + ", expected the block size " + blockSize);
        }
        block.boundsCheck(offset, length);
        final DirectBuffer view;
        final int base;
        final byte[] array = block.byteArray();
        final int checksum;
        if (array != null) {
            view = block;
            base = offset;
            checksum = BlockFormat.checksum(crc, array, block.wrapAdjustment() + offset, blockSize);
        } else {
            block.getBytes(offset, scratchArray, 0, blockSize);
            view = scratch;
            base = 0;
            checksum = BlockFormat.checksum(crc, scratchArray, 0, blockSize);
        }

        final int magic = BlockFormat.magic(view, base);
        if (magic != BlockFormat.MAGIC) {
            throw new CorruptBlockException(position, "bad magic 0x" + hex(magic));
        }
        final int version = BlockFormat.version(view, base);
        if (version != BlockFormat.VERSION) {
            throw new CorruptBlockException(position, "unsupported format version " + version);
        }
        final int stored = BlockFormat.crc(view, base);
        if (stored != checksum) {
            throw new CorruptBlockException(position, "checksum mismatch (stored 0x" + hex(stored) + ", computed 0x"
                + hex(checksum) + ")");
        }
        final int flags = BlockFormat.flags(view, base);
        if (flags != 0) {
            throw new CorruptBlockException(position, "unknown flags 0x" + Integer.toHexString(flags));
        }
        final int used = BlockFormat.usedLength(view, base);
        if (used < 1 || used > capacity) {
            throw new CorruptBlockException(position, "usedLength " + used + " outside 1.." + capacity);
        }
        final int first = BlockFormat.firstRecordOffset(view, base);
        if (first != BlockFormat.NO_RECORD_STARTS && (first < 0 || first >= used)) {
            throw new CorruptBlockException(position, "firstRecordOffset " + first + " outside the used length "
                + used);
        }
        final int payload = base + BlockFormat.HEADER_LENGTH;
        for (int i = used; i < capacity; i++) {
            if (view.getByte(payload + i) != 0) {
                throw new CorruptBlockException(position, "non-zero byte in the unused tail at payload offset " + i);
            }
        }

        if (resync) {
            if (first == BlockFormat.NO_RECORD_STARTS) {
                return;
            }
            resync = false;
            trial.clear();
            walkFrom(trial, view, payload, used, first, position, false);
            walkFrom(state, view, payload, used, first, position, true);
            return;
        }
        trial.copyFrom(state);
        walk(trial, view, payload, used, first, position, false);
        try {
            walk(state, view, payload, used, first, position, true);
        } catch (final RuntimeException | Error ex) {
            state.clear();
            throw ex;
        }
    }

    /**
     * Follows the framing of one block from state {@code s}. With {@code apply} false it only validates (and may
     * throw); with {@code apply} true it repeats the same steps on the real state, copying and delivering.
     */
    private void walk(final State s, final DirectBuffer view, final int payload, final int used, final int first,
                      final long position, final boolean apply) {
        int p = 0;
        if (s.inProgress) {
            p = consume(s, view, payload, p, used, position, apply);
            if (s.inProgress) {
                if (first != BlockFormat.NO_RECORD_STARTS) {
                    throw new CorruptBlockException(position, "firstRecordOffset " + first
                        + " lies inside a record that continues into the next block");
                }
            } else if (first == BlockFormat.NO_RECORD_STARTS) {
                if (p != used) {
                    throw new CorruptBlockException(position, "the continued record ends at payload offset " + p
                        + " of " + used + " used bytes, but firstRecordOffset says no record starts here");
                }
            } else if (first != p) {
                throw new CorruptBlockException(position, "firstRecordOffset " + first
                    + " but the continued record ends at payload offset " + p);
            }
        } else if (first == BlockFormat.NO_RECORD_STARTS) {
            throw new CorruptBlockException(position, "continues a record but no record is in progress");
        } else if (first != 0) {
            throw new CorruptBlockException(position, "first record starts at payload offset " + first
                + " but no record is in progress to fill the bytes before it");
        }
        walkFrom(s, view, payload, used, p, position, apply);
    }

    /** Reads the records that start at payload offset {@code p} and after. */
    private void walkFrom(final State s, final DirectBuffer view, final int payload, final int used, final int from,
                          final long position, final boolean apply) {
        int p = from;
        while (p < used) {
            s.clear();
            s.inProgress = true;
            p = consume(s, view, payload, p, used, position, apply);
        }
        if (s.inProgress && used < capacity) {
            throw new CorruptBlockException(position, "a record continues past a partially filled block (" + used
                + " of " + capacity + " bytes used)");
        }
    }

    /** Consumes the record in progress from payload offset {@code p}; returns the offset after what it took. */
    private int consume(final State s, final DirectBuffer view, final int payload, final int p, final int used,
                        final long position, final boolean apply) {
        int at = p;
        while (s.prefixBytes < BlockFormat.RECORD_LENGTH_FIELD && at < used) {
            s.prefix |= (view.getByte(payload + at) & 0xFF) << (8 * s.prefixBytes);
            s.prefixBytes++;
            at++;
            if (s.prefixBytes == BlockFormat.RECORD_LENGTH_FIELD) {
                if (s.prefix <= 0 || s.prefix > BlockFormat.MAX_RECORD_LENGTH) {
                    throw new CorruptBlockException(position, "record length " + s.prefix + " outside 1.."
                        + BlockFormat.MAX_RECORD_LENGTH);
                }
                s.length = s.prefix;
                s.have = 0;
            }
        }
        if (s.prefixBytes < BlockFormat.RECORD_LENGTH_FIELD) {
            return at;
        }
        final int take = Math.min(s.length - s.have, used - at);
        if (apply) {
            if (s.have == 0 && take == s.length) {
                deliver(view, payload + at, take, position);
            } else if (take > 0) {
                assembly.putBytes(s.have, view, payload + at, take);
                if (s.have + take == s.length) {
                    try {
                        deliver(assembly, 0, s.length, position);
                    } finally {
                        if (assembly.capacity() > ASSEMBLY_KEEP_BYTES) {
                            assembly = new ExpandableDirectByteBuffer(BlockFormat.DEFAULT_BLOCK_SIZE);
                        }
                    }
                }
            }
        }
        s.have += take;
        at += take;
        if (s.have == s.length) {
            s.clear();
        }
        return at;
    }

    private void deliver(final DirectBuffer buffer, final int offset, final int length, final long position) {
        recordsDelivered++;
        handler.onRecord(buffer, offset, length, position);
    }

    private static String hex(final int value) {
        final String s = Integer.toHexString(value);
        return "00000000".substring(s.length()) + s;
    }

    /** Reassembly state: the record in progress, if any. */
    private static final class State {
        boolean inProgress;
        /** Bytes of the length prefix seen so far (the prefix itself may be split across blocks). */
        int prefixBytes;
        int prefix;
        int length;
        int have;

        void clear() {
            inProgress = false;
            prefixBytes = 0;
            prefix = 0;
            length = 0;
            have = 0;
        }

        void copyFrom(final State other) {
            inProgress = other.inProgress;
            prefixBytes = other.prefixBytes;
            prefix = other.prefix;
            length = other.length;
            have = other.have;
        }
    }
}
