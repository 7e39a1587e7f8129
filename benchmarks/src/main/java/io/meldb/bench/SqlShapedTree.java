package io.meldb.bench;

import io.meldb.core.Arena;
import io.meldb.core.Intention;
import io.meldb.core.IntentionAdopter;
import io.meldb.core.Isolation;
import io.meldb.core.Meld;
import io.meldb.core.NodeDirectory;
import io.meldb.core.Snapshot;
import io.meldb.core.Transaction;

import java.util.SplittableRandom;

/**
 * The SQL benchmark's table (issue 16) as a bare meld-core tree, for the engine's JMH benchmarks of the commit
 * path: {@code rows} SQL-encoded integer keys with 112-byte values, then as many melded update transactions (2
 * updates, 8 whole-row reads, serializable) as asked, so that the tree's nodes lie scattered over memory as a
 * running server's do.
 */
final class SqlShapedTree implements AutoCloseable {
    private static final int VALUE_BYTES = 112;

    private final Arena arena = new Arena();
    private final NodeDirectory directory = new NodeDirectory();
    private final Meld meld = new Meld(arena, directory);
    private final IntentionAdopter adopter = new IntentionAdopter(arena, directory);
    private final int rows;
    private final SplittableRandom random;
    private long root;
    private long csn;

    /** The table of {@code rows} rows, then {@code history} update transactions melded one after another. */
    SqlShapedTree(final int rows, final int history, final SplittableRandom random) {
        this.rows = rows;
        this.random = random;
        final Transaction load = new Transaction(arena, new Snapshot(0, 0), Isolation.SERIALIZABLE);
        for (int i = 0; i < rows; i++) {
            load.put(key(i), value());
        }
        meld(load);
        for (int s = 0; s < history; s++) {
            meld(update());
        }
    }

    /** An update transaction on the latest state, not melded: 2 updates and 8 reads of random rows. */
    Transaction update() {
        final Transaction txn = new Transaction(arena, snapshot(), Isolation.SERIALIZABLE);
        txn.put(key(random.nextInt(rows)), value());
        txn.put(key(random.nextInt(rows)), value());
        for (int op = 0; op < 8; op++) {
            txn.get(key(random.nextInt(rows)));
        }
        return txn;
    }

    /** The latest state. */
    Snapshot snapshot() {
        return new Snapshot(root, csn);
    }

    Arena arena() {
        return arena;
    }

    private void meld(final Transaction txn) {
        csn++;
        final long next = meld.finalMeld(adopter.adopt(txn, csn, 0, new Intention()), root);
        if (next == Meld.CONFLICT) {
            throw new IllegalStateException("a transaction on the latest state did not commit");
        }
        root = next;
    }

    /** The key of row {@code id} as the SQL layer encodes an INTEGER primary key behind its table's prefix. */
    static byte[] key(final int id) {
        return new byte[] {0, 0, 0, 7, (byte) 0x80, 1, (byte) ((id >>> 24) ^ 0x80), (byte) (id >>> 16),
            (byte) (id >>> 8), (byte) id};
    }

    private byte[] value() {
        final byte[] v = new byte[VALUE_BYTES];
        for (int i = 0; i < v.length; i++) {
            v[i] = (byte) ('a' + random.nextInt(26));
        }
        return v;
    }

    @Override
    public void close() {
        arena.close();
    }
}
