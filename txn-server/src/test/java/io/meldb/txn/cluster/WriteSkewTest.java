package io.meldb.txn.cluster;

import io.meldb.txn.api.IsolationLevel;
import io.meldb.txn.EmbeddedNode;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import io.meldb.txn.api.TxnOutcome;
import io.meldb.txn.api.TxnService;
import io.meldb.txn.api.TxnSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import static io.meldb.txn.cluster.ClusterBankTest.balance;
import static io.meldb.txn.cluster.ClusterBankTest.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Write skew (Berenson et al.): two accounts x = y = 100 under the constraint x + y >= 0. T1 reads x and y and
 * withdraws 150 from x; T2 reads x and y and withdraws 150 from y; both begin before either commits, and each alone
 * keeps the constraint. Snapshot isolation sees no write-write conflict and commits both (x + y = -100);
 * serializable isolation records the reads (DependsOn) and meld aborts exactly one of them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WriteSkewTest {
    private static final byte[] X = "skew:x".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] Y = "skew:y".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;

    private EmbeddedNode node;
    private TxnService db;

    @BeforeEach
    void start() {
        node = EmbeddedNode.start(dir);
        db = node.txnService();
        try (TxnSession s = db.begin(IsolationLevel.SERIALIZABLE, false)) {
            s.put(X, balance(100));
            s.put(Y, balance(100));
            s.commit();
        }
    }

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void commitsBothWithdrawalsAndBreaksTheConstraintUnderSnapshotIsolation() {
        final Result r = runSkew(IsolationLevel.SNAPSHOT);
        assertTrue(r.firstCommitted && r.secondCommitted, "both withdrawals commit under SI: " + r);
        assertEquals(-50, r.x, "x");
        assertEquals(-50, r.y, "y");
        assertEquals(-100, r.x + r.y, "x + y after write skew under SI");
    }

    @Test
    void commitsExactlyOneWithdrawalAndKeepsTheConstraintUnderSerializable() {
        final Result r = runSkew(IsolationLevel.SERIALIZABLE);
        assertNotEquals(r.firstCommitted, r.secondCommitted, "exactly one withdrawal commits: " + r);
        final TxnException loser = r.firstCommitted ? r.secondError : r.firstError;
        assertEquals(TxnError.CONFLICT, loser.error(), "the other one is a meld abort: " + loser);
        assertEquals(TxnOutcome.State.ABORTED, db.outcome(r.firstCommitted ? r.second : r.first).state());
        assertEquals(TxnOutcome.State.COMMITTED, db.outcome(r.firstCommitted ? r.first : r.second).state());
        assertEquals(50, r.x + r.y, "x + y");
        assertTrue(r.x + r.y >= 0, "the constraint holds under SERIALIZABLE: " + r);
        assertEquals(r.firstCommitted ? -50 : 100, r.x, "x");
        assertEquals(r.firstCommitted ? 100 : -50, r.y, "y");
    }

    private Result runSkew(final IsolationLevel isolation) {
        final TxnSession t1 = db.begin(isolation, false);
        final TxnSession t2 = db.begin(isolation, false);
        withdrawIfAllowed(t1, X);
        withdrawIfAllowed(t2, Y);
        // both are complete and neither has committed: commit them at once
        final CompletableFuture<Long> c1 = t1.commitAsync();
        final CompletableFuture<Long> c2 = t2.commitAsync();
        final Result r = new Result();
        r.first = t1.id();
        r.second = t2.id();
        r.firstError = join(c1);
        r.secondError = join(c2);
        r.firstCommitted = r.firstError == null;
        r.secondCommitted = r.secondError == null;
        try (TxnSession s = db.begin(IsolationLevel.SERIALIZABLE, true)) {
            r.x = value(s.get(X));
            r.y = value(s.get(Y));
        }
        return r;
    }

    /** Reads both accounts and withdraws 150 from {@code from} when the constraint x + y >= 0 still holds after. */
    private static void withdrawIfAllowed(final TxnSession t, final byte[] from) {
        final long x = value(t.get(X));
        final long y = value(t.get(Y));
        assertEquals(200, x + y, "each transaction sees the initial state");
        assertTrue(x + y - 150 >= 0, "the withdrawal is allowed on the snapshot");
        t.put(from, balance(value(t.get(from)) - 150));
    }

    private static TxnException join(final CompletableFuture<Long> f) {
        try {
            f.join();
            return null;
        } catch (CompletionException e) {
            return assertInstanceOf(TxnException.class, e.getCause());
        }
    }

    private static final class Result {
        io.meldb.txn.api.TxnId first;
        io.meldb.txn.api.TxnId second;
        boolean firstCommitted;
        boolean secondCommitted;
        TxnException firstError;
        TxnException secondError;
        long x;
        long y;

        @Override
        public String toString() {
            return "T1 " + (firstCommitted ? "committed" : firstError) + ", T2 "
                + (secondCommitted ? "committed" : secondError) + ", x " + x + ", y " + y;
        }
    }
}
