package io.meldb.txn.client;

import io.meldb.txn.protocol.TxnBodyReader;
import io.meldb.txn.protocol.TxnFrame;
import io.meldb.core.Increment;
import io.meldb.core.IntField;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.api.KeyValue;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.api.TxnSession;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;

import static io.meldb.txn.protocol.TxnRpcProtocol.*;

/**
 * A {@link TxnSession} of a {@link TxnRpcClient}: each call is one request naming the server-side handle of the
 * transaction, on the connection that began it. Once that connection is gone the session fails with
 * {@link TxnError#SESSION_LOST} (the server aborted it); once committed or aborted, with
 * {@link TxnError#UNKNOWN_TRANSACTION}, as in-process.
 */
final class RemoteTxnSession implements TxnSession {
    private static final Logger LOG = LoggerFactory.getLogger(RemoteTxnSession.class);

    private final TxnRpcClient client;
    private final Channel channel;
    private final long handle;
    private final TxnId id;
    private final IsolationLevel isolation;
    private final boolean readOnly;
    private final long snapshotCsn;
    private volatile boolean ended;
    /** Key and value bytes this transaction sent, which lengthen the wait for its commit's answer. */
    private long written;

    RemoteTxnSession(TxnRpcClient client, Channel channel, long handle, TxnId id, IsolationLevel isolation, boolean readOnly,
                     long snapshotCsn) {
        this.client = client;
        this.channel = channel;
        this.handle = handle;
        this.id = id;
        this.isolation = isolation;
        this.readOnly = readOnly;
        this.snapshotCsn = snapshotCsn;
    }

    @Override
    public TxnId id() {
        return id;
    }

    @Override
    public IsolationLevel isolation() {
        return isolation;
    }

    @Override
    public boolean readOnly() {
        return readOnly;
    }

    @Override
    public long snapshotCsn() {
        return snapshotCsn;
    }

    @Override
    public byte[] get(byte[] key) {
        return call(GET, rid -> TxnFrame.get(ByteBufAllocator.DEFAULT, rid, handle, key), VALUE, f -> {
            TxnBodyReader r = f.reader();
            byte[] value = r.readBytes("value");
            r.end();
            return value;
        });
    }

    @Override
    public int get(byte[] key, org.agrona.MutableDirectBuffer into, long columns) {
        if (columns == io.meldb.core.ColumnReads.WHOLE_ROW) {
            return get(key, into);
        }
        byte[] value = call(GET, rid -> TxnFrame.get(ByteBufAllocator.DEFAULT, rid, handle, key, columns), VALUE, f -> {
            TxnBodyReader r = f.reader();
            byte[] v = r.readBytes("value");
            r.end();
            return v;
        });
        if (value == null) {
            return -1;
        }
        into.putBytes(0, value);
        return value.length;
    }

    @Override
    public List<KeyValue> scan(byte[] lo, boolean loInclusive, byte[] hi, boolean hiInclusive, boolean descending,
                               int limit) {
        return call(SCAN, rid -> TxnFrame.scan(ByteBufAllocator.DEFAULT, rid, handle, lo, loInclusive, hi, hiInclusive,
                descending, limit), ENTRIES, f -> {
            TxnBodyReader r = f.reader();
            int count = r.readInt("count");
            if (count < 0) {
                throw new IllegalArgumentException("negative entry count " + count);
            }
            List<KeyValue> entries = new ArrayList<>(Math.min(count, 1 << 16));
            for (int i = 0; i < count; i++) {
                entries.add(new KeyValue(r.readBytes("key"), r.readBytes("value")));
            }
            r.end();
            return entries;
        });
    }

    @Override
    public void dependOn(byte[] lo, boolean loInclusive, byte[] hi, boolean hiInclusive) {
        call(DEPEND, rid -> TxnFrame.depend(ByteBufAllocator.DEFAULT, rid, handle, lo, loInclusive, hi, hiInclusive),
                DONE, RemoteTxnSession::done);
    }

    @Override
    public void put(byte[] key, byte[] value) {
        written += (key == null ? 0L : key.length) + (value == null ? 0L : value.length); // the server validates
        call(PUT, rid -> TxnFrame.put(ByteBufAllocator.DEFAULT, rid, handle, key, value), DONE, RemoteTxnSession::done);
    }

    @Override
    public void add(byte[] key, IntField field, long delta) {
        written += (key == null ? 0L : key.length) + Increment.DESCRIPTOR_LENGTH; // the server validates
        call(ADD, rid -> TxnFrame.add(ByteBufAllocator.DEFAULT, rid, handle, key, field, delta), DONE,
                RemoteTxnSession::done);
    }

    @Override
    public void delete(byte[] key) {
        written += key == null ? 0 : key.length;
        call(DELETE, rid -> TxnFrame.delete(ByteBufAllocator.DEFAULT, rid, handle, key), DONE, RemoteTxnSession::done);
    }

    @Override
    public long commit() {
        return client.await(commitAsync());
    }

    /** Completes on the client's I/O thread (see {@link TxnRpcClient}). */
    @Override
    public CompletableFuture<Long> commitAsync() {
        try {
            checkUsable();
        } catch (TxnException e) {
            return CompletableFuture.failedFuture(e);
        }
        ended = true;
        // a large transaction's decision takes longer (the server waits as long: TxnServer's commit)
        final long extraNanos = TimeUnit.MILLISECONDS.toNanos(written / COMMIT_BYTES_PER_EXTRA_MILLI);
        final CompletableFuture<Long> answer = client.send(channel, COMMIT, id,
                rid -> TxnFrame.commit(ByteBufAllocator.DEFAULT, rid, handle), COMMITTED,
                f -> {
                    TxnBodyReader r = f.reader();
                    long csn = r.readLong("csn");
                    r.end();
                    return csn;
                }, extraNanos);
        if (!readOnly && written > 0) {
            return answer;
        }
        // a transaction that wrote nothing appends nothing: its lost COMMIT has no outcome to ask about
        final CompletableFuture<Long> out = new CompletableFuture<>();
        answer.whenComplete((csn, failure) -> {
            final Throwable error = failure instanceof java.util.concurrent.CompletionException
                    && failure.getCause() != null ? failure.getCause() : failure;
            if (error == null) {
                out.complete(csn);
            } else if (error instanceof TxnException e && e.error() == TxnError.OUTCOME_UNKNOWN) {
                out.completeExceptionally(new TxnException(TxnError.SESSION_LOST, "the connection to the transaction "
                        + "server was lost at the COMMIT of " + id + ", which wrote nothing", e));
            } else {
                out.completeExceptionally(error);
            }
        });
        return out;
    }

    /** Safe on an ended transaction, and on a lost connection (the server aborted the transaction already). */
    @Override
    public void abort() {
        if (ended) {
            return;
        }
        ended = true;
        if (!channel.isActive()) {
            return;
        }
        try {
            client.await(client.send(channel, ABORT, id, rid -> TxnFrame.abort(ByteBufAllocator.DEFAULT, rid, handle),
                    DONE, RemoteTxnSession::done));
        } catch (TxnException e) {
            if (e.error() != TxnError.SESSION_LOST) {
                throw e;
            }
        }
    }

    @Override
    public void close() {
        try {
            abort();
        } catch (TxnException e) {
            LOG.debug("aborting {} on close failed: {}", id, e.getMessage());
        }
    }

    private <T> T call(byte type, LongFunction<TxnFrame> request, byte answerType, TxnRpcClient.AnswerDecoder<T> decoder) {
        checkUsable();
        return client.await(client.send(channel, type, id, request, answerType, decoder));
    }

    private void checkUsable() {
        if (ended) {
            throw new TxnException(TxnError.UNKNOWN_TRANSACTION, "transaction " + id + " has ended");
        }
        if (!channel.isActive()) {
            throw client.sessionLost(id);
        }
    }

    private static Void done(TxnFrame f) {
        f.reader().end();
        return null;
    }

    @Override
    public String toString() {
        return "RemoteTxnSession[" + id + " on " + client.target() + ", handle " + handle + "]";
    }
}
