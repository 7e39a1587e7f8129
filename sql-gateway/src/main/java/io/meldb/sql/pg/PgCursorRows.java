package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.calcite.StatementMemory;
import io.meldb.sql.server.RowCursor;

import java.util.ArrayList;
import java.util.List;

/**
 * The rows of one SQL cursor as PostgreSQL's executor and tuplestore hand them to a portal (pquery.c's
 * PortalRunSelect, portalcmds.c's PersistHoldablePortal): read forward from the query's open cursor and, for a
 * SCROLL cursor, kept as they are read, so that they can be read again backwards. {@link #materialize} reads the
 * rest into memory when the cursor must no longer read its transaction: at COMMIT for WITH HOLD, and before a
 * statement of the same transaction writes (PostgreSQL's cursors do not see later changes). A forward-only cursor
 * keeps only the rows it has not yet passed. What is kept counts against {@code meldb.statement_memory} (53200 past
 * it), so no cursor can fill the server's heap.
 *
 * <p>Positions are PostgreSQL's: 0 before the first row, k on row k, the row count + 1 after the last.
 */
final class PgCursorRows {
    /** Takes the rows a FETCH returns; null for MOVE, which only moves. */
    interface Sink {
        void row(RowCursor row);
    }

    private final String name;
    private final int width;
    private final boolean scrollable;
    private final long limit;
    /** The query's open rows; null once read to the end or materialized. */
    private RowCursor source;
    /** Closes the query's result (its snapshot) and statement, once. */
    private Runnable release;
    /** Rows read and held: row {@code base + 1} first. */
    private final List<Object[]> kept = new ArrayList<>();
    /** Rows before the first one kept that are no longer held (a forward-only cursor's rows already passed). */
    private long base;
    private long at;
    private long bytes;
    private final PgRowList view = PgRowList.single();

    PgCursorRows(final String name, final int width, final boolean scrollable, final long limit,
                 final RowCursor source, final Runnable release) {
        this.name = name;
        this.width = width;
        this.scrollable = scrollable;
        this.limit = limit;
        this.source = source;
        this.release = release;
    }

    /** Whether rows are still read from the query's open cursor, that is, from the transaction. */
    boolean reading() {
        return source != null;
    }

    /** Moves forward up to {@code count} rows ({@link PgCursorCommand#ALL}: all), giving each to {@code sink}. */
    long forward(final long count, final Sink sink) {
        long n = 0;
        while (n < count) {
            final long next = at + 1;
            final RowCursor row;
            if (next - base <= kept.size()) {
                view.show(kept.get((int) (next - base - 1)));
                row = view;
            } else if (source != null && source.next()) {
                if (scrollable) {
                    view.show(keep(PgRowList.copy(source, width)));
                    row = view;
                } else {
                    base = next; // passed: never read again
                    row = source;
                }
            } else {
                release();
                at = base + kept.size() + 1;
                return n;
            }
            at = next;
            if (sink != null) {
                sink.row(row);
            }
            n++;
        }
        return n;
    }

    /** Moves backward up to {@code count} rows (a SCROLL cursor's), giving each to {@code sink}. */
    long backward(final long count, final Sink sink) {
        long n = 0;
        while (n < count) {
            final long previous = at - 1;
            if (previous < 1) {
                at = 0;
                return n;
            }
            view.show(kept.get((int) (previous - base - 1)));
            at = previous;
            if (sink != null) {
                sink.row(view);
            }
            n++;
        }
        return n;
    }

    /** Back to before the first row (a SCROLL cursor's: every row read is kept). */
    void rewind() {
        at = 0;
    }

    /** Reads the rest of the query's rows into memory and closes its cursor, which then no longer reads. */
    void materialize() {
        if (source == null) {
            return;
        }
        while (source.next()) {
            keep(PgRowList.copy(source, width));
        }
        release();
    }

    /** Closes the query's cursor (if still open) and drops the kept rows. */
    void close() {
        release();
        kept.clear();
    }

    private Object[] keep(final Object[] row) {
        bytes += StatementMemory.rowBytes(row);
        if (limit > 0 && bytes > limit) {
            throw new SqlStateException("53200", "out of memory: cursor \"" + name + "\" holds more rows than its "
                    + "memory budget of " + limit / (1024 * 1024) + " MB (a SCROLL or WITH HOLD cursor, and one "
                    + "open when its transaction writes, holds the rows it reads); raise meldb.statement_memory or "
                    + "declare it over fewer rows");
        }
        kept.add(row);
        return row;
    }

    private void release() {
        source = null;
        final Runnable r = release;
        release = null;
        if (r != null) {
            r.run();
        }
    }
}
