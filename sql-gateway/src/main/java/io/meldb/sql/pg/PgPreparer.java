package io.meldb.sql.pg;

import io.meldb.sql.pg.catalog.PgMetaQueries;
import io.meldb.sql.pg.catalog.PgMetaQuery;
import io.meldb.sql.server.SqlSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ScheduledFuture;

/**
 * Makes the {@link PgStatement} of a Parse message or of one statement of a simple Query: a command the protocol
 * layer runs itself ({@link PgCommand}), a system catalog query of psql or pgjdbc ({@link PgMetaQueries}), or the
 * SQL engine's prepared statement, under statement_timeout (planning counts against it too). A DECLARE's query is
 * prepared with it (its errors and parameters are the DECLARE's), and a FETCH is described by its cursor's columns,
 * as PostgreSQL describes them.
 */
final class PgPreparer {
    private static final Logger LOG = LoggerFactory.getLogger(PgConnection.class);

    private final PgContext context;

    PgPreparer(final PgContext context) {
        this.context = context;
    }

    /**
     * Prepares one statement: a command of the protocol layer, a system catalog query of psql or pgjdbc
     * ({@link PgMetaQueries}), or the SQL engine's prepared statement.
     */
    PgStatement prepare(final String sql, final int[] declared) {
        final SqlSession session = context.session;
        if (sql.isEmpty()) {
            return new PgStatement(session::release, sql, new PgCommand.NoOp(""), null, declared, PgColumns.NONE,
                    new int[0], 0);
        }
        final PgCommand command = PgCommand.parse(sql);
        if (command instanceof PgCommand.OnCursor c) {
            return cursorStatement(sql, c, declared);
        }
        if (command != null) {
            return new PgStatement(session::release, sql, command, null, declared, context.commands.columns(command),
                    new int[0], 0);
        }
        final PgMetaQuery meta = PgMetaQueries.recognize(sql);
        if (meta != null && !meta.family().equals(PgMetaQueries.EMPTY_CATALOG)) {
            LOG.debug("answering {} from the catalog", meta.family());
            return PgStatement.meta(sql, meta, declared);
        }
        final PgSqlRewriter.Rewritten rewritten = PgSqlRewriter.rewrite(sql);
        final SqlSession.PreparedSql prepared;
        try {
            prepared = session.prepare(rewritten.sql());
        } catch (RuntimeException e) {
            if (meta == null) {
                throw e;
            }
            // a query of the empty catalogs the SQL engine cannot run yet: no rows, as PostgreSQL has none here
            LOG.debug("answering {} from the catalog: {}", meta.family(), e.getMessage());
            return PgStatement.meta(sql, meta, declared);
        }
        try {
            return new PgStatement(session::release, sql, null, prepared, declared,
                    PgColumnNames.rename(rewritten.sql(), PgColumns.of(prepared.columns())),
                    rewritten.parameterOf(), rewritten.parameterCount());
        } catch (RuntimeException e) {
            session.release(prepared);
            throw e;
        }
    }

    /**
     * A cursor statement: a DECLARE with its query prepared (and checked as PostgreSQL's parse analysis checks
     * it); a FETCH with the columns of its cursor as it is now (none when there is no such cursor yet: Describe then
     * answers NoData, as in PostgreSQL, and Execute 34000).
     */
    private PgStatement cursorStatement(final String sql, final PgCommand.OnCursor command, final int[] declared) {
        if (command.command() instanceof PgCursorCommand.Declare d) {
            final PgStatement query = prepare(d.query(), declared);
            try {
                PgCursorCommands.check(d, query);
                return PgStatement.declare(sql, command, query);
            } catch (RuntimeException e) {
                query.close();
                throw e;
            }
        }
        final PgCursor cursor = command.command() instanceof PgCursorCommand.Fetch f && !f.move()
                ? context.cursors.get(f.name()) : null;
        final PgStatement statement = new PgStatement(context.session::release, sql, command, null, declared,
                cursor == null ? PgColumns.NONE : cursor.columns, new int[0], 0);
        if (cursor != null && cursor.binary) {
            statement.simpleFormats = PgBind.ALL_BINARY;
        }
        return statement;
    }

    /** {@link #prepare} under statement_timeout: planning a statement counts against its time too. */
    PgStatement prepareTimed(final String sql, final int[] declared) {
        final ScheduledFuture<?> timer = context.startStatementTimer();
        try {
            return prepare(sql, declared);
        } finally {
            PgContext.stop(timer);
        }
    }
}
