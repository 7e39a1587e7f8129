package io.meldb.core;

import java.util.Arrays;
import java.util.List;

/**
 * Makes the {@link Intention} a server would decode from its own log record straight from the transaction tree it
 * still holds (meld paper App. E: the intention tree "can be used by meld in the same server to avoid unnecessary
 * deserialization"), into the pipeline's arena: the owned nodes in post order as one contiguous run, their keys and
 * payloads copied, pointers to committed nodes kept as the handles the decoder would look up by VN.
 *
 * <p>Unlike {@link IntentionAdopter}, which turns the tree into the intention in place, the session's arena is left
 * as it was and can be reused at once: a session arena is a whole segment, too large to hand to the pipeline per
 * transaction. What it writes is field for field what {@link IntentionDecoder} writes for the same record: VN =
 * (csn, persisted, post-order index), the format's node flags, SCV, SSV, key, payload (none for a tombstone; an
 * unchanged path copy's is its committed source's, as a payload reference decodes), the
 * derived fields, the increment history after the payload, the column mask of a read, the external-child hints, range records with the encoder's flags and {@code asOf} = the snapshot
 * CSN; the nodes are registered as one run. Only the tree's external pointers must name nodes resident in this
 * directory's memory (the session's snapshot must lie in the generation being melded): the caller checks that.
 * Not thread-safe: one per pipeline thread.
 */
public final class IntentionCopier {
    private final Arena arena;
    private final NodeDirectory directory;
    private long[] stack = new long[64];
    private int[] state = new int[64];
    /** The owned nodes in post order, and their copies. */
    private long[] order = new long[256];
    private long[] copies = new long[256];
    /** Nodes in the owned subtree of each, which places its children in post order (as the decoder checks). */
    private int[] sizes = new int[256];

    public IntentionCopier(final Arena arena, final NodeDirectory directory) {
        this.arena = arena;
        this.directory = directory;
    }

    /** The intention of {@code txn} as melded at {@code csn}, carrying {@code intentionFlags} (one byte). */
    public Intention copy(final Transaction txn, final long csn, final int intentionFlags, final Intention into) {
        if (!Transaction.owned(txn.root())) {
            throw new IllegalArgumentException("a transaction without writes needs no intention");
        }
        final long snapshotCsn = txn.snapshot().csn();
        final List<RangeDependency> list = txn.ranges();
        final long ranges = list.isEmpty() ? 0 : arena.allocate(list.size() * Intention.RANGE_SIZE);
        for (int i = 0; i < list.size(); i++) {
            final RangeDependency r = list.get(i);
            // the flags exactly as the encoder writes them (inclusive bits kept on an unbounded end)
            final int flags = (r.lo() == null ? Intention.RANGE_LO_UNBOUNDED : 0)
                | (r.loInclusive() ? Intention.RANGE_LO_INCLUSIVE : 0)
                | (r.hi() == null ? Intention.RANGE_HI_UNBOUNDED : 0)
                | (r.hiInclusive() ? Intention.RANGE_HI_INCLUSIVE : 0);
            final long lo = r.lo() == null ? 0 : arena.copyOf(r.lo());
            final long hi = r.hi() == null ? 0 : arena.copyOf(r.hi());
            Intention.writeRange(ranges, i, lo, r.lo() == null ? 0 : r.lo().length, hi,
                r.hi() == null ? 0 : r.hi().length, snapshotCsn, flags);
        }
        final int count = collect(txn.root());
        final long first = arena.allocate(count * Node.SIZE);
        for (int i = 0; i < count; i++) {
            copies[i] = first + (long) i * Node.SIZE;
        }
        for (int i = 0; i < count; i++) {
            copyNode(i, csn);
        }
        directory.registerRun(Versions.vn(csn, Versions.KIND_PERSISTED, 0), first, count);
        return into.set(csn, csn, snapshotCsn, copies[count - 1], count, txn.isolation(), intentionFlags, ranges,
            list.size()).span(first, first + (long) (count - 1) * Node.SIZE, count);
    }

    private void copyNode(final int i, final long csn) {
        final long n = order[i];
        final long c = copies[i];
        final int flags = Node.flags(n);
        final boolean tombstone = (flags & Node.TOMBSTONE) != 0;
        Node.key(c, bytes(Node.key(n), Node.keyLength(n)), Node.keyLength(n));
        if (tombstone) {
            Node.payload(c, 0, 0);
        } else if (Node.sharedPayloadSource(n) != 0) {
            // as the decoder resolves a payload reference: the committed source's payload (which the copy shares),
            // with its history
            Node.copyPayload(c, n);
        } else {
            // an increment history lies right after the payload, as the decoder leaves it (an empty payload
            // points at the history)
            final int length = Node.payloadLength(n);
            Node.payload(c, bytes(Node.payload(n), length + ColumnReads.historyLength(n)), length);
        }
        Node.vn(c, Versions.vn(csn, Versions.KIND_PERSISTED, i));
        Node.scv(c, Node.scv(n));
        Node.ssv(c, Node.ssv(n));
        Node.flags(c, flags & (IntentionFormat.NODE_FLAGS_MASK | Node.INCREMENT | Node.HISTORY));
        // the encoder records a column mask only on a read of some columns
        Node.columns(c, (flags & Node.DEPENDS_ON) != 0 ? Node.columns(n) : ColumnReads.WHOLE_ROW);
        final long left = Node.left(n);
        final long right = Node.right(n);
        final boolean leftOwned = Transaction.owned(left);
        final boolean rightOwned = Transaction.owned(right);
        // post order: the right child's subtree ends just before its parent, the left child's just before that
        final int rightSize = rightOwned ? sizes[i - 1] : 0;
        Node.left(c, leftOwned ? copies[i - 1 - rightSize] : left);
        Node.right(c, rightOwned ? copies[i - 1] : right);
        Node.updateDerived(c);
        Node.markExternalChildren(c, left != 0 && !leftOwned, right != 0 && !rightOwned);
    }

    /** A copy of {@code length} bytes of node memory in the arena (0 for none, as the decoder has it). */
    private long bytes(final long from, final int length) {
        if (length == 0) {
            return 0;
        }
        final long to = arena.allocate(length);
        NodeMemory.copy(from, to, length);
        return to;
    }

    /** Iterative post order over the owned nodes into {@link #order}; returns their number. */
    private int collect(final long root) {
        int count = 0;
        int top = 0;
        stack[0] = root;
        state[0] = 0;
        while (top >= 0) {
            final long n = stack[top];
            final int s = state[top];
            if (s < 2) {
                state[top] = s + 1;
                final long child = s == 0 ? Node.left(n) : Node.right(n);
                if (Transaction.owned(child)) {
                    top++;
                    if (top == stack.length) {
                        stack = Arrays.copyOf(stack, top * 2);
                        state = Arrays.copyOf(state, top * 2);
                    }
                    stack[top] = child;
                    state[top] = 0;
                }
            } else {
                if (count == order.length) {
                    order = Arrays.copyOf(order, count * 2);
                    copies = Arrays.copyOf(copies, count * 2);
                    sizes = Arrays.copyOf(sizes, count * 2);
                }
                final int rightSize = Transaction.owned(Node.right(n)) ? sizes[count - 1] : 0;
                final int leftSize = Transaction.owned(Node.left(n)) ? sizes[count - 1 - rightSize] : 0;
                order[count] = n;
                sizes[count] = 1 + leftSize + rightSize;
                count++;
                top--;
            }
        }
        return count;
    }
}
