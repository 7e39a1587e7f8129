package io.meldb.sql.calcite;

import java.time.OffsetDateTime;
import java.util.List;

/**
 * The SQL cursors a session has open (DECLARE), as PostgreSQL's {@code pg_cursors} view lists them: a front end
 * that runs cursors (the PostgreSQL protocol's) gives its connection one of these.
 */
public interface OpenCursors {
    /** A session without SQL cursors. */
    OpenCursors NONE = List::of;

    /** The open cursors, in the order they were declared. */
    List<Cursor> list();

    /** One row of pg_cursors. */
    record Cursor(String name, String statement, boolean holdable, boolean binary, boolean scrollable,
                  OffsetDateTime creationTime) {
    }
}
