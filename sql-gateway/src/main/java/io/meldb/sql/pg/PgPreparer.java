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
 * SQL engine's prepared statement, under statement_timeout (planning counts against it too).
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
    private PgStatement prepare(final String sql, final int[] declared) {
        final SqlSession session = context.session;
        if (sql.isEmpty()) {
            return new PgStatement(session::release, sql, new PgCommand.NoOp(""), null, declared, PgColumns.NONE,
                    new int[0], 0);
        }
        final PgCommand command = PgCommand.parse(sql);
        if (command != null) {
            return new PgStatement(session::release, sql, command, null, declared, context.commands.columns(command),
                    new int[0], 0);
        }
        final PgMetaQuery meta = PgMetaQueries.recognize(sql);
        if (meta != null) {
            LOG.debug("answering {} from the catalog", meta.family());
            return PgStatement.meta(sql, meta, declared);
        }
        final PgSqlRewriter.Rewritten rewritten = PgSqlRewriter.rewrite(sql);
        final SqlSession.PreparedSql prepared = session.prepare(rewritten.sql());
        try {
            return new PgStatement(session::release, sql, null, prepared, declared,
                    PgColumnNames.rename(rewritten.sql(), PgColumns.of(prepared.columns())),
                    rewritten.parameterOf(), rewritten.parameterCount());
        } catch (RuntimeException e) {
            session.release(prepared);
            throw e;
        }
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
