package io.meldb.txn.session;

import io.meldb.core.AbortReason;
import io.meldb.core.IncrementException;
import io.meldb.core.IntField;
import io.meldb.core.Intention;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.core.RangeDependency;
import io.meldb.core.Transaction;
import io.meldb.txn.api.KeyValue;
import io.meldb.txn.CommitPathProfile;
import io.meldb.txn.LogRecords;
import io.meldb.txn.PendingCommits;
import io.meldb.txn.ServerContext;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnId;
import io.meldb.txn.TxnServerConfig;
import io.meldb.txn.api.TxnSession;
import io.meldb.txn.checkpoint.CommittedState;
import org.agrona.ExpandableDirectByteBuffer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One transaction of an in-process client (Hyder II §5.2): reads walk its pinned snapshot, writes build the
 * intention in its workspace's arena, and commit encodes the intention behind the log header, appends it through
 * the {@link IntentionAppender} and waits for the reply stage to answer with meld's decision. Runs on the client's
 * thread.
 */
final class LocalSession implements TxnSession {
    private final Sessions sessions;
    private final ServerContext ctx;
    private final TxnId id;
    private final IsolationLevel isolation;
    private final boolean readOnly;
    /** Intention flag bits carrying how often the transaction already restarted (the tail-latency policy's input). */
    private final int restartFlags;
    private final CommittedState.Pinned pinned;
    private Workspace workspace;
    private Transaction txn;
    /** Size of the intention record this session appended, which lengthens the wait for its decision. */
    private int recordBytes;

    LocalSession(final Sessions sessions, final TxnId id, final IsolationLevel isolation, final boolean readOnly,
                 final int restarts, final CommittedState.Pinned pinned, final Workspace workspace) {
        this.restartFlags = Intention.restartFlags(restarts);
        this.sessions = sessions;
        this.ctx = sessions.ctx();
        this.pinned = pinned;
        this.id = id;
        this.isolation = isolation;
        this.readOnly = readOnly;
        this.workspace = workspace;
        // a read-only transaction logs nothing, so it needs no readset
        this.txn = new Transaction(workspace.arena, pinned.snapshot(), readOnly || isolation == IsolationLevel.SNAPSHOT
                ? io.meldb.core.Isolation.SNAPSHOT : io.meldb.core.Isolation.SERIALIZABLE, workspace.scratch);
        ctx.metrics().began();
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
        return pinned.snapshot().csn();
    }

    private Transaction active() {
        if (txn == null) {
            throw new TxnException(TxnError.UNKNOWN_TRANSACTION, "transaction " + id + " has ended");
        }
        return txn;
    }

    private static void checkKey(final byte[] key) {
        if (key == null || key.length == 0) {
            throw new TxnException(TxnError.BAD_REQUEST, "a key must have at least one byte");
        }
        if (key.length > TxnServerConfig.MAX_KEY_BYTES) {
            throw new TxnException(TxnError.TOO_LARGE, "key of " + key.length + " bytes exceeds the limit of "
                + TxnServerConfig.MAX_KEY_BYTES);
        }
    }

    private void checkWritable() {
        if (readOnly) {
            throw new TxnException(TxnError.READ_ONLY, "transaction " + id + " is read-only");
        }
    }

    @Override
    public byte[] get(final byte[] key) {
        final Transaction t = active();
        checkKey(key);
        final byte[] value = t.get(key);
        checkSize(t);
        return value;
    }

    @Override
    public int get(final byte[] key, final org.agrona.MutableDirectBuffer into) {
        return get(key, into, io.meldb.core.ColumnReads.WHOLE_ROW);
    }

    @Override
    public int get(final byte[] key, final org.agrona.MutableDirectBuffer into, final long columns) {
        final Transaction t = active();
        checkKey(key);
        final int length = t.get(key, into, columns);
        checkSize(t);
        return length;
    }

    /**
     * Ends the transaction with TOO_LARGE as soon as its intention could exceed the server's limit, so the
     * statement that crossed it fails at once instead of the commit after all the work.
     */
    private void checkSize(final Transaction t) {
        final long bound = t.intentionBytesBound();
        final int limit = ctx.config().maxIntentionBytes();
        if (bound > limit) {
            end();
            ctx.metrics().abortedTooLarge();
            throw new TxnException(TxnError.TOO_LARGE, "transaction " + id + " exceeds the limit of "
                + limit + " bytes one transaction may write (" + t.ownedNodes()
                + " changed or read rows and tree nodes, up to " + bound + " bytes); it is rolled back."
                + " Split it, or raise the txn-server's " + TxnServerConfig.MAX_INTENTION_BYTES_FLAG);
        }
    }

    @Override
    public List<KeyValue> scan(final byte[] lo, final boolean loInclusive, final byte[] hi,
                               final boolean hiInclusive, final boolean descending, final int limit) {
        final Transaction t = active();
        if (limit < 0) {
            throw new TxnException(TxnError.BAD_REQUEST, "scan limit " + limit + " is negative");
        }
        final List<byte[][]> rows = t.scan(lo, loInclusive, hi, hiInclusive, descending, limit);
        checkSize(t);
        final List<KeyValue> out = new ArrayList<>(rows.size());
        for (byte[][] r : rows) {
            out.add(new KeyValue(r[0], r[1]));
        }
        return out;
    }

    @Override
    public void dependOn(final byte[] lo, final boolean loInclusive, final byte[] hi,
                         final boolean hiInclusive) {
        final Transaction t = active();
        if (!readOnly) {
            t.dependOn(new RangeDependency(lo, loInclusive, hi, hiInclusive));
            checkSize(t);
        }
    }

    @Override
    public void put(final byte[] key, final byte[] value) {
        final Transaction t = active();
        checkWritable();
        checkKey(key);
        if (value == null) {
            throw new TxnException(TxnError.BAD_REQUEST, "a value is required (delete removes a key)");
        }
        if (value.length > TxnServerConfig.MAX_VALUE_BYTES) {
            throw new TxnException(TxnError.TOO_LARGE, "value of " + value.length
                + " bytes exceeds the limit of " + TxnServerConfig.MAX_VALUE_BYTES);
        }
        t.put(key, value);
        checkSize(t);
    }

    @Override
    public void add(final byte[] key, final IntField field, final long delta) {
        final Transaction t = active();
        checkWritable();
        checkKey(key);
        if (field == null) {
            throw new TxnException(TxnError.BAD_REQUEST, "an increment needs a field");
        }
        try {
            t.add(key, field, delta);
        } catch (IncrementException e) {
            throw new TxnException(e.reason() == AbortReason.INCREMENT_OUT_OF_RANGE ? TxnError.OUT_OF_RANGE
                : TxnError.NOT_APPLICABLE, "increment of " + delta + " refused: " + e.getMessage());
        }
        checkSize(t);
    }

    @Override
    public void delete(final byte[] key) {
        final Transaction t = active();
        checkWritable();
        checkKey(key);
        t.delete(key);
        checkSize(t);
    }

    @Override
    public long commit() {
        final CompletableFuture<Long> f = commitAsync();
        final long waitMillis = commitWaitMillis();
        try {
            return f.get(waitMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TxnException(TxnError.OUTCOME_UNKNOWN, "interrupted while waiting for the outcome of "
                + id + "; ask outcome(" + id + ")");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TxnException te) {
                throw new TxnException(te.error(), te.getMessage(), te);
            }
            throw new TxnException(TxnError.INTERNAL, "commit of " + id + " failed: " + e.getCause(), e);
        } catch (TimeoutException e) {
            throw new TxnException(TxnError.OUTCOME_UNKNOWN, "no decision on " + id + " within "
                + waitMillis + " ms; ask outcome(" + id + ")");
        }
    }

    /** How long a commit waits for its decision: a large intention takes its time through the log and meld. */
    private long commitWaitMillis() {
        return ctx.config().commitTimeout().toMillis() + recordBytes / TxnServerConfig.COMMIT_BYTES_PER_EXTRA_MILLI;
    }

    @Override
    public CompletableFuture<Long> commitAsync() {
        final Transaction t;
        try {
            t = active();
        } catch (TxnException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (!t.hasWrites()) {
            end();
            ctx.metrics().committedLocally();
            return CompletableFuture.completedFuture(pinned.snapshot().csn());
        }
        try {
            sessions.checkAvailable();
        } catch (TxnException e) {
            end();
            return CompletableFuture.failedFuture(e.error() == TxnError.UNAVAILABLE && !ctx.stopped()
                ? new TxnException(TxnError.CONFLICT, "transaction " + id + " was not committed: "
                    + e.getMessage() + "; retry it") : e);
        }
        final long appendAs = ctx.incarnation();
        if (id.incarnation() != appendAs) {
            end();
            return CompletableFuture.failedFuture(new TxnException(TxnError.CONFLICT, "transaction " + id
                + " was not committed: server " + ctx.serverId() + " re-fenced its log stream as incarnation "
                + appendAs + " while it ran; retry it"));
        }
        final ExpandableDirectByteBuffer record = workspace.record;
        final int length;
        try {
            // encoded in place behind the log header: a large intention is not copied once more
            final int bodyLength = workspace.encoder.encode(t, restartFlags, record, LogRecords.INTENTION_HEADER,
                ctx.config().maxIntentionBytes());
            length = LogRecords.INTENTION_HEADER + bodyLength;
            recordBytes = length;
            LogRecords.putIntentionHeader(record, ctx.serverId(), appendAs, id.sequence());
        } catch (RuntimeException e) {
            end();
            return CompletableFuture.failedFuture(new TxnException(TxnError.TOO_LARGE,
                "transaction " + id + " cannot be serialized: " + e.getMessage(), e));
        }
        final PendingCommits.Decision decided = ctx.pending().register(appendAs, id.sequence(),
            TimeUnit.MILLISECONDS.toNanos(commitWaitMillis()));
        final IntentionAppender appender = sessions.appender();
        // the reader melds a copy of this tree instead of decoding the record (OwnIntentions): held before the
        // append, since the record may reach the reader before append returns
        final boolean hold = ctx.config().adoptOwnIntentions();
        final long sequence = id.sequence();
        if (hold) {
            workspace.hold(t, restartFlags, pinned.generation(), appendAs);
            ctx.ownIntentions().put(sequence, workspace);
        }
        final CompletableFuture<Long> appended;
        try {
            appended = appender.append(record, length);
        } catch (RuntimeException | Error e) {
            if (hold) {
                ctx.ownIntentions().drop(appendAs, sequence);
            }
            throw e;
        }
        final CommitPathProfile profile = ctx.commitPath();
        profile.record(CommitPathProfile.Phase.APPEND_CALL, System.nanoTime() - decided.registeredNanos());
        if (hold) {
            endHolding();
        } else {
            end();
        }
        appended.whenComplete((position, error) -> {
            if (error != null) {
                if (hold) {
                    ctx.ownIntentions().drop(appendAs, sequence); // if its record is in the log, it is decoded
                }
                appender.onAppendFailure(appendAs, error);
            } else {
                profile.record(CommitPathProfile.Phase.LOG_ACK, System.nanoTime() - decided.registeredNanos());
            }
        });
        return decided;
    }

    @Override
    public void abort() {
        if (txn != null) {
            ctx.metrics().abortedByClient();
            end();
        }
    }

    @Override
    public void close() {
        abort();
    }

    /** Ends the transaction while its workspace stays held for the log reader (see {@link #commitAsync}). */
    private void endHolding() {
        txn = null;
        workspace = null;
        sessions.endedHolding(pinned);
    }

    private void end() {
        if (txn != null) {
            txn = null;
            final Workspace w = workspace;
            workspace = null;
            sessions.ended(w, pinned);
        }
    }
}
