package io.meldb.txn.protocol;

import io.meldb.core.IntField;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.wire.Frame;
import io.meldb.txn.api.KeyValue;
import io.meldb.txn.api.ServerStatus;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnOutcome;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.meldb.txn.protocol.TxnRpcProtocol.*;

/**
 * One frame of the transaction RPC (layout in {@link TxnRpcProtocol}): type, request id and body on the log
 * protocol's framing ({@link Frame}); the static factories build every frame type, and {@link #reader()} reads a
 * body field by field.
 */
public final class TxnFrame extends Frame {
    public TxnFrame(byte type, long requestId, ByteBuf body) {
        super(type, requestId, body);
    }

    @Override
    public String typeName() {
        return TxnRpcProtocol.typeName(type());
    }

    /** A reader over the body (does not move the body's own reader index). */
    public TxnBodyReader reader() {
        return new TxnBodyReader(this);
    }

    /** Code of an ERROR frame. */
    public TxnError errorCode() {
        return TxnError.fromCode(errorCodeValue());
    }

    @Override
    public TxnFrame replace(ByteBuf content) {
        return new TxnFrame(type(), requestId(), content);
    }

    // ---------------------------------------------------------------------------------------- field writers

    /** Writes {@code bytes}: an int length (-1 for null) and the bytes. */
    public static ByteBuf writeBytes(ByteBuf b, byte[] bytes) {
        if (bytes == null) {
            return b.writeInt(-1);
        }
        return b.writeInt(bytes.length).writeBytes(bytes);
    }

    static int sizeOf(byte[] bytes) {
        return 4 + (bytes == null ? 0 : bytes.length);
    }

    // ---------------------------------------------------------------------------------------- requests

    public static TxnFrame begin(ByteBufAllocator alloc, long requestId, IsolationLevel isolation, boolean readOnly) {
        return new TxnFrame(BEGIN, requestId, alloc.buffer(2).writeByte(isolation.code()).writeByte(readOnly ? 1 : 0));
    }

    /** BEGIN of a transaction that already restarted {@code restarts} times (sent saturated at 255). */
    public static TxnFrame begin(ByteBufAllocator alloc, long requestId, IsolationLevel isolation, boolean readOnly,
                                 int restarts) {
        return new TxnFrame(BEGIN, requestId, alloc.buffer(3).writeByte(isolation.code()).writeByte(readOnly ? 1 : 0)
                .writeByte(Math.min(Math.max(restarts, 0), 255)));
    }

    public static TxnFrame get(ByteBufAllocator alloc, long requestId, long handle, byte[] key) {
        return new TxnFrame(GET, requestId, writeBytes(alloc.buffer(8 + sizeOf(key)).writeLong(handle), key));
    }

    /**
     * GET that depends only on the value bytes in {@code columns} (an {@link io.meldb.core.ColumnReads} mask, not 0):
     * the mask follows the key (issue 21; a server before it refuses the frame's trailing bytes).
     */
    public static TxnFrame get(ByteBufAllocator alloc, long requestId, long handle, byte[] key, long columns) {
        return new TxnFrame(GET, requestId,
            writeBytes(alloc.buffer(16 + sizeOf(key)).writeLong(handle), key).writeLong(columns));
    }

    public static TxnFrame scan(ByteBufAllocator alloc, long requestId, long handle, byte[] lo, boolean loInclusive,
                                byte[] hi, boolean hiInclusive, boolean descending, int limit) {
        int flags = (loInclusive ? SCAN_LO_INCLUSIVE : 0) | (hiInclusive ? SCAN_HI_INCLUSIVE : 0)
                | (descending ? SCAN_DESCENDING : 0);
        ByteBuf b = alloc.buffer(13 + sizeOf(lo) + sizeOf(hi)).writeLong(handle).writeByte(flags).writeInt(limit);
        writeBytes(b, lo);
        writeBytes(b, hi);
        return new TxnFrame(SCAN, requestId, b);
    }

    public static TxnFrame depend(ByteBufAllocator alloc, long requestId, long handle, byte[] lo, boolean loInclusive,
                                  byte[] hi, boolean hiInclusive) {
        int flags = (loInclusive ? SCAN_LO_INCLUSIVE : 0) | (hiInclusive ? SCAN_HI_INCLUSIVE : 0);
        ByteBuf b = alloc.buffer(9 + sizeOf(lo) + sizeOf(hi)).writeLong(handle).writeByte(flags);
        writeBytes(b, lo);
        writeBytes(b, hi);
        return new TxnFrame(DEPEND, requestId, b);
    }

    public static TxnFrame add(ByteBufAllocator alloc, long requestId, long handle, byte[] key, IntField field,
                               long delta) {
        ByteBuf b = alloc.buffer(8 + sizeOf(key) + 4 + 2 + 24).writeLong(handle);
        writeBytes(b, key);
        b.writeInt(field.offset()).writeByte(field.width()).writeByte(field.presenceByte() ? ADD_PRESENCE_BYTE : 0)
            .writeLong(delta).writeLong(field.min()).writeLong(field.max());
        return new TxnFrame(ADD, requestId, b);
    }

    public static TxnFrame put(ByteBufAllocator alloc, long requestId, long handle, byte[] key, byte[] value) {
        ByteBuf b = alloc.buffer(8 + sizeOf(key) + sizeOf(value)).writeLong(handle);
        writeBytes(b, key);
        writeBytes(b, value);
        return new TxnFrame(PUT, requestId, b);
    }

    public static TxnFrame delete(ByteBufAllocator alloc, long requestId, long handle, byte[] key) {
        return new TxnFrame(DELETE, requestId, writeBytes(alloc.buffer(8 + sizeOf(key)).writeLong(handle), key));
    }

    public static TxnFrame commit(ByteBufAllocator alloc, long requestId, long handle) {
        return new TxnFrame(COMMIT, requestId, alloc.buffer(8).writeLong(handle));
    }

    public static TxnFrame abort(ByteBufAllocator alloc, long requestId, long handle) {
        return new TxnFrame(ABORT, requestId, alloc.buffer(8).writeLong(handle));
    }

    public static TxnFrame outcome(ByteBufAllocator alloc, long requestId, TxnId id) {
        return new TxnFrame(OUTCOME, requestId, alloc.buffer(16).writeLong(id.incarnation()).writeLong(id.sequence()));
    }

    /** OUTCOME that may wait up to {@code waitMillis} for a definite answer (see {@code TxnService.awaitOutcome}). */
    public static TxnFrame awaitOutcome(ByteBufAllocator alloc, long requestId, TxnId id, int waitMillis) {
        return new TxnFrame(OUTCOME, requestId, alloc.buffer(20).writeLong(id.incarnation()).writeLong(id.sequence())
                .writeInt(waitMillis));
    }

    public static TxnFrame status(long requestId) {
        return new TxnFrame(STATUS, requestId, Unpooled.EMPTY_BUFFER);
    }

    // ---------------------------------------------------------------------------------------- answers

    public static TxnFrame begun(ByteBufAllocator alloc, long requestId, long handle, TxnId id, long snapshotCsn,
                                 IsolationLevel isolation, boolean readOnly) {
        ByteBuf b = alloc.buffer(34).writeLong(handle).writeLong(id.incarnation()).writeLong(id.sequence())
                .writeLong(snapshotCsn).writeByte(isolation.code()).writeByte(readOnly ? 1 : 0);
        return new TxnFrame(BEGUN, requestId, b);
    }

    public static TxnFrame value(ByteBufAllocator alloc, long requestId, byte[] value) {
        return new TxnFrame(VALUE, requestId, writeBytes(alloc.buffer(sizeOf(value)), value));
    }

    /** Bytes of an ENTRIES body (to check against the frame limit before building it). */
    public static long entriesBodyLength(List<KeyValue> entries) {
        long n = 4;
        for (KeyValue kv : entries) {
            n += sizeOf(kv.key()) + sizeOf(kv.value());
        }
        return n;
    }

    public static TxnFrame entries(ByteBufAllocator alloc, long requestId, List<KeyValue> entries) {
        ByteBuf b = alloc.buffer((int) entriesBodyLength(entries)).writeInt(entries.size());
        for (KeyValue kv : entries) {
            writeBytes(b, kv.key());
            writeBytes(b, kv.value());
        }
        return new TxnFrame(ENTRIES, requestId, b);
    }

    public static TxnFrame done(long requestId) {
        return new TxnFrame(DONE, requestId, Unpooled.EMPTY_BUFFER);
    }

    public static TxnFrame committed(ByteBufAllocator alloc, long requestId, long csn) {
        return new TxnFrame(COMMITTED, requestId, alloc.buffer(8).writeLong(csn));
    }

    public static TxnFrame outcomeIs(ByteBufAllocator alloc, long requestId, TxnOutcome outcome) {
        byte[] reason = outcome.reason() == null ? null : outcome.reason().getBytes(StandardCharsets.UTF_8);
        ByteBuf b = alloc.buffer(25 + sizeOf(reason)).writeLong(outcome.id().incarnation())
                .writeLong(outcome.id().sequence()).writeByte(stateCode(outcome.state())).writeLong(outcome.csn());
        return new TxnFrame(OUTCOME_IS, requestId, writeBytes(b, reason));
    }

    public static TxnFrame statusIs(ByteBufAllocator alloc, long requestId, ServerStatus s) {
        ByteBuf b = alloc.buffer(32).writeInt(s.serverId()).writeLong(s.incarnation()).writeLong(s.csn())
                .writeLong(s.stateHash()).writeInt(s.inFlight());
        return new TxnFrame(STATUS_IS, requestId, b);
    }

    public static TxnFrame error(ByteBufAllocator alloc, long requestId, TxnError code, String message) {
        ByteBuf b = errorBody(alloc, code.code(), message == null ? code.name() : message, MAX_ERROR_MESSAGE);
        return new TxnFrame(ERROR, requestId, b);
    }
}
