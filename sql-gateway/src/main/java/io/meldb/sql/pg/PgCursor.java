package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.pg.PgCursorCommand.Direction;

import java.time.OffsetDateTime;

/**
 * One SQL cursor (DECLARE ... CURSOR): what pg_cursors shows of it, its rows ({@link PgCursorRows}), and its position,
 * moved by FETCH and MOVE exactly as PostgreSQL 15's pquery.c moves a portal (DoPortalRunFetch, PortalRunSelect,
 * DoPortalRewind): the same counts, the same end states, and 55000 "cursor can only scan forward" wherever
 * PostgreSQL refuses a NO SCROLL cursor. A cursor declared with neither SCROLL nor NO SCROLL is forward-only here,
 * where PostgreSQL makes one scrollable when its plan can run backwards (most plans): moving it back is 0A000, a
 * feature MeldDB lacks, rather than PostgreSQL's answer.
 */
final class PgCursor {
    final String name;
    /** The DECLARE statement's text (pg_cursors.statement). */
    final String statement;
    final boolean holdable;
    final boolean binary;
    final boolean scrollable;
    /** Declared NO SCROLL (rather than with neither SCROLL nor NO SCROLL). */
    private final boolean noScroll;
    final OffsetDateTime created;
    /** The query's result columns. */
    final PgColumns columns;
    final PgCursorRows rows;
    /** How many savepoints were open in the declaring transaction when it was declared. */
    int level;
    /** Whether it was declared in the open transaction (false for a WITH HOLD cursor once that committed). */
    boolean ofTransaction = true;
    /** A FETCH or MOVE failed on it: PostgreSQL's failed portal, which cannot run again. */
    boolean failed;
    private boolean atStart = true;
    private boolean atEnd;
    /** PostgreSQL's portalPos: the row last read (the row count once at the end). */
    private long position;

    PgCursor(final String name, final String statement, final boolean holdable, final boolean binary,
             final Boolean scroll, final PgColumns columns, final PgCursorRows rows) {
        this.name = name;
        this.statement = statement;
        this.holdable = holdable;
        this.binary = binary;
        this.scrollable = Boolean.TRUE.equals(scroll);
        this.noScroll = Boolean.FALSE.equals(scroll);
        this.created = OffsetDateTime.now();
        this.columns = columns;
        this.rows = rows;
    }

    /**
     * FETCH ({@code sink} takes the rows) or MOVE ({@code sink} null) {@code count} rows in {@code direction};
     * answers the count of the command tag (DoPortalRunFetch).
     */
    long fetch(final Direction direction, final long count, final PgCursorRows.Sink sink) {
        Direction d = direction;
        long n = count;
        switch (direction) {
            case FORWARD -> {
                if (n < 0) {
                    d = Direction.BACKWARD;
                    n = -n;
                }
            }
            case BACKWARD -> {
                if (n < 0) {
                    d = Direction.FORWARD;
                    n = -n;
                }
            }
            case ABSOLUTE -> {
                return absolute(n, sink);
            }
            case RELATIVE -> {
                if (n > 0) {
                    if (n > 1) {
                        select(true, n - 1, null);
                    }
                    return select(true, 1, sink);
                }
                if (n < 0) {
                    if (n < -1) {
                        select(false, -n - 1, null);
                    }
                    return select(false, 1, sink);
                }
                d = Direction.FORWARD; // RELATIVE 0: FORWARD 0
            }
            default -> throw new IllegalStateException(direction.toString());
        }
        boolean forward = d == Direction.FORWARD;
        if (n == 0) {
            // zero re-reads the current row, if any (per SQL); MOVE 0 says whether FETCH 0 would return one
            final boolean onRow = !atStart && !atEnd;
            if (sink == null) {
                return onRow ? 1 : 0;
            }
            if (onRow) {
                select(false, 1, null);
                n = 1;
                forward = true;
            }
        }
        if (!forward && n == PgCursorCommand.ALL && sink == null) {
            // MOVE BACKWARD ALL: a rewind
            long result = position;
            if (result > 0 && !atEnd) {
                result--;
            }
            rewind();
            return result;
        }
        return select(forward, n, sink);
    }

    /** Whether the cursor is past its last row. */
    boolean atEnd() {
        return atEnd;
    }

    private long absolute(final long count, final PgCursorRows.Sink sink) {
        if (count > 0) {
            // rewind and go forward count - 1 rows, or go from where it is when that is nearer
            if (count - 1 <= position / 2) {
                rewind();
                if (count > 1) {
                    select(true, count - 1, null);
                }
            } else {
                long pos = position;
                if (atEnd) {
                    pos++; // one more to read when past the end
                }
                if (count <= pos) {
                    select(false, pos - count + 1, null);
                } else if (count > pos + 1) {
                    select(true, count - pos - 1, null);
                }
            }
            return select(true, 1, sink);
        }
        if (count < 0) {
            // to the end, back abs(count) - 1 rows, and the row before
            select(true, PgCursorCommand.ALL, null);
            if (count < -1) {
                select(false, -count - 1, null);
            }
            return select(false, 1, sink);
        }
        rewind();
        return select(true, 0, sink);
    }

    /** PortalRunSelect: moves {@code count} rows forward or backward, updating the portal's position. */
    private long select(final boolean forward, final long count, final PgCursorRows.Sink sink) {
        if (forward) {
            if (atEnd || count <= 0) {
                return 0;
            }
            final long n = rows.forward(count, sink);
            if (n > 0) {
                atStart = false;
            }
            if (count == PgCursorCommand.ALL || n < count) {
                atEnd = true;
            }
            position += n;
            return n;
        }
        if (!scrollable) {
            throw scanForwardOnly();
        }
        if (atStart || count <= 0) {
            return 0;
        }
        final long n = rows.backward(count, sink);
        if (n > 0 && atEnd) {
            atEnd = false;
            position++;
        }
        if (count == PgCursorCommand.ALL || n < count) {
            atStart = true;
            position = 0;
        } else {
            position -= n;
        }
        return n;
    }

    /** DoPortalRewind: back to the start, which a NO SCROLL cursor can only be when it has not moved. */
    private void rewind() {
        if (atStart && !atEnd) {
            return;
        }
        if (!scrollable) {
            throw scanForwardOnly();
        }
        rows.rewind();
        atStart = true;
        atEnd = false;
        position = 0;
    }

    /**
     * PostgreSQL's error for a NO SCROLL cursor; for one declared with neither, 0A000: PostgreSQL would have moved
     * it back if its plan could run backwards, MeldDB keeps rows for going back only when told SCROLL.
     */
    private SqlStateException scanForwardOnly() {
        final SqlStateException e = noScroll ? new SqlStateException("55000", "cursor can only scan forward")
                : new SqlStateException("0A000", "cursor can only scan forward: moving backward in a cursor declared "
                        + "without SCROLL is not supported");
        return e.withHint("Declare it with SCROLL option to enable backward scan.");
    }
}
