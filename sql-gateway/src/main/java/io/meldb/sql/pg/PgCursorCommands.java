package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.SqlLexer;
import io.meldb.sql.fast.ParameterValues;
import io.meldb.sql.server.SqlSession;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Carries out the SQL cursor statements ({@link PgCursorCommand}) with PostgreSQL 15's errors and command tags
 * (portalcmds.c: PerformCursorOpen, PerformPortalFetch, PerformPortalClose). DECLARE prepares its query as any
 * statement is prepared ({@link PgPreparer}) and opens it as a portal's statement is opened ({@link
 * PgExecutor#open}), its result then held open by a {@link PgCursor}; FETCH sends the rows the cursor moves over
 * as DataRows of the cursor's columns ({@link PgRowWriter}), MOVE counts them, CLOSE drops one cursor or all. An
 * Execute on a cursor's name fetches forward, as PostgreSQL runs a cursor as a portal.
 */
final class PgCursorCommands {
    private final PgContext context;
    private final PgPreparer preparer;
    private final PgRowWriter writer;
    /** Opens a portal's statement (PgExecutor#open), leaving its rows open in the portal's result. */
    private final Consumer<PgPortal> opener;

    PgCursorCommands(final PgContext context, final PgPreparer preparer, final PgRowWriter writer,
                     final Consumer<PgPortal> opener) {
        this.context = context;
        this.preparer = preparer;
        this.writer = writer;
        this.opener = opener;
    }

    /**
     * Runs the cursor statement of {@code portal}; answers the command tag it sent, or null when it left its rows
     * in the portal's result for the caller to send: a FETCH under an Execute's row limit ({@code maxRows} > 0),
     * whose rest the next Execute sends, as PostgreSQL holds a utility statement's rows in its portal.
     */
    String run(final PgCursorCommand command, final PgPortal portal, final int maxRows) {
        if (context.session.state().failed()) {
            throw new SqlStateException("25P02", "current transaction is aborted, commands ignored until end of "
                    + "transaction block");
        }
        final String tag;
        if (command instanceof PgCursorCommand.Declare d) {
            declare(d, portal);
            tag = "DECLARE CURSOR";
        } else if (command instanceof PgCursorCommand.Fetch f) {
            final PgCursor cursor = context.cursors.find(f.name());
            if (!f.move() && maxRows > 0) {
                portal.result = new SqlSession.Result(0, new PgRowList(collect(cursor, f)), -1, null);
                return null;
            }
            final short[] formats = portal.resultFormats;
            final java.time.ZoneId zone = writer.sessionZone();
            final long n = move(cursor, f, f.move() ? null : row -> writer.write(cursor.columns, formats, row, zone));
            tag = (f.move() ? "MOVE " : "FETCH ") + n;
        } else {
            final PgCursorCommand.Close c = (PgCursorCommand.Close) command;
            if (c.name() == null) {
                context.cursors.closeAll();
                tag = "CLOSE CURSOR ALL";
            } else {
                context.cursors.close(c.name());
                tag = "CLOSE CURSOR";
            }
        }
        PgBackend.commandComplete(context.output.buffer(), tag);
        return tag;
    }

    /**
     * Execute on a cursor's name (PostgreSQL runs a cursor as a portal): sends up to {@code maxRows} rows forward
     * (0: all) in text, then CommandComplete, or PortalSuspended while the cursor is not at its end.
     */
    void execute(final PgCursor cursor, final int maxRows) {
        final java.time.ZoneId zone = writer.sessionZone();
        final long n = move(cursor, new PgCursorCommand.Fetch(cursor.name, PgCursorCommand.Direction.FORWARD,
                maxRows <= 0 ? PgCursorCommand.ALL : maxRows, false),
                row -> writer.write(cursor.columns, PgBind.NO_FORMATS, row, zone));
        if (cursor.atEnd()) {
            PgBackend.commandComplete(context.output.buffer(), "SELECT", n);
        } else {
            PgBackend.portalSuspended(context.output.buffer());
        }
    }

    /**
     * The checks PostgreSQL's parse analysis makes of a DECLARE (transformDeclareCursorStmt), once its query is
     * prepared: a query that locks rows cannot be WITH HOLD, SCROLL or INSENSITIVE.
     */
    static void check(final PgCursorCommand.Declare d, final PgStatement query) {
        if (query.command != null || query.columns.size() == 0) {
            throw new SqlStateException("0A000", "DECLARE CURSOR over this statement is not supported (declare "
                    + "it over a query that returns rows)");
        }
        if (!locks(query)) {
            return;
        }
        final String clause = lockStrength(d.query());
        if (d.hold()) {
            throw new SqlStateException("0A000", "DECLARE CURSOR WITH HOLD ... " + clause + " is not supported",
                    "Holdable cursors must be READ ONLY.", null);
        }
        if (Boolean.TRUE.equals(d.scroll())) {
            throw new SqlStateException("0A000", "DECLARE SCROLL CURSOR ... " + clause + " is not supported",
                    "Scrollable cursors must be READ ONLY.", null);
        }
        if (d.insensitive()) {
            throw new SqlStateException("42P11", "DECLARE INSENSITIVE CURSOR ... " + clause + " is not valid",
                    "Insensitive cursors must be READ ONLY.", null);
        }
    }

    private void declare(final PgCursorCommand.Declare d, final PgPortal portal) {
        if (!d.hold() && !context.block.explicit() && !context.multiStatementQuery) {
            throw new SqlStateException("25P01", "DECLARE CURSOR can only be used in transaction blocks");
        }
        if (d.name().isEmpty()) {
            throw new SqlStateException("34000", "invalid cursor name: must not be empty");
        }
        if (context.cursors.get(d.name()) != null || context.portals.portal(d.name()) != null) {
            throw new SqlStateException("42P03", "cursor \"" + d.name() + "\" already exists");
        }
        // the query again, for this cursor alone (the session's plan cache answers it): the cursor owns it
        final PgStatement query = preparer.prepare(d.query(), portal.statement.parameterOids);
        final PgPortal open = new PgPortal(query, ParameterValues.of(portal.parameters.objects().clone()),
                PgBind.NO_FORMATS);
        PgCursorRows rows = null;
        try {
            check(d, query);
            if (query.meta != null) {
                context.block.beforeStatement(false); // a catalog query opens no block itself: the cursor is of one
            }
            opener.accept(open);
            final SqlSession.Result result = open.result;
            if (result.rows() == null) {
                throw new SqlStateException("0A000", "DECLARE CURSOR over a statement that returns no rows is not "
                        + "supported");
            }
            rows = new PgCursorRows(d.name(), query.columns.size(), Boolean.TRUE.equals(d.scroll()),
                    context.session.state().memory().limit(), result.rows(), () -> {
                        try {
                            context.session.closeResult(result);
                        } finally {
                            query.close();
                        }
                    });
            if (locks(query)) {
                rows.materialize(); // its rows are marked written now, by the statement that read them
            }
            final String text = context.queryText != null ? context.queryText : portal.statement.sql;
            context.cursors.add(new PgCursor(d.name(), text, d.hold(), d.binary(), d.scroll(), query.columns,
                    rows));
        } catch (RuntimeException | Error e) {
            if (rows != null) {
                rows.close();
            } else {
                if (open.result != null) {
                    context.session.closeResult(open.result);
                }
                query.close();
            }
            throw e;
        }
    }

    /**
     * The rows of a FETCH, held for Executes with a row limit to send (PostgreSQL's utility portal holds them too),
     * within the session's memory budget (53200 past it).
     */
    private List<Object[]> collect(final PgCursor cursor, final PgCursorCommand.Fetch f) {
        final List<Object[]> rows = new ArrayList<>();
        final int width = cursor.columns.size();
        final long limit = context.session.state().memory().limit();
        final long[] bytes = {0};
        move(cursor, f, row -> {
            final Object[] copy = PgRowList.copy(row, width);
            bytes[0] += io.meldb.sql.calcite.StatementMemory.rowBytes(copy);
            if (limit > 0 && bytes[0] > limit) {
                throw new SqlStateException("53200", "out of memory: the rows of this FETCH from cursor \""
                        + cursor.name + "\" pass the memory budget of " + limit / (1024 * 1024) + " MB (an Execute "
                        + "with a row limit holds them); fetch fewer rows at a time, or raise meldb.statement_memory");
            }
            rows.add(copy);
        });
        return rows;
    }

    /** FETCH or MOVE on {@code cursor}; a failure leaves it failed, as PostgreSQL fails the portal. */
    private long move(final PgCursor cursor, final PgCursorCommand.Fetch f, final PgCursorRows.Sink sink) {
        if (cursor.failed) {
            throw new SqlStateException("55000", "portal \"" + cursor.name + "\" cannot be run");
        }
        context.session.state().clearCancel(); // a cancel that came while the session was idle stops nothing
        try {
            return cursor.fetch(f.direction(), f.count(), sink);
        } catch (RuntimeException | Error e) {
            cursor.failed = true;
            throw e;
        }
    }

    private static boolean locks(final PgStatement query) {
        return query.prepared != null && query.prepared.clauses() != null && query.prepared.clauses().locks();
    }

    /** The first locking clause of a query, as PostgreSQL names it in its errors ("FOR UPDATE", "FOR KEY SHARE"). */
    private static String lockStrength(final String sql) {
        final List<SqlLexer.Token> t = SqlLexer.tokenize(sql);
        for (int i = 0; i + 1 < t.size(); i++) {
            if (!t.get(i).is("FOR")) {
                continue;
            }
            if (t.get(i + 1).is("UPDATE") || t.get(i + 1).is("SHARE")) {
                return "FOR " + t.get(i + 1).text();
            }
            if (i + 3 < t.size() && t.get(i + 1).is("NO") && t.get(i + 2).is("KEY") && t.get(i + 3).is("UPDATE")) {
                return "FOR NO KEY UPDATE";
            }
            if (i + 2 < t.size() && t.get(i + 1).is("KEY") && t.get(i + 2).is("SHARE")) {
                return "FOR KEY SHARE";
            }
        }
        return "FOR UPDATE";
    }
}
