package io.meldb.sql.pg;

import io.meldb.sql.fast.ParameterValues;
import io.meldb.sql.server.SqlSession;

/**
 * A bound statement ready to execute (the extended protocol's portal): parameter values, the formats its result
 * columns travel in, and once executed, its open cursor, so that an Execute with a row limit can suspend it and
 * the next Execute go on where it stopped.
 */
final class PgPortal {
    PgStatement statement;
    ParameterValues parameters;
    short[] resultFormats;
    /** The execution's result once the portal ran; its cursor stays open until the portal completes. */
    SqlSession.Result result;
    long rowsSent;
    /** The command tag of a portal that completed; a completed portal answers it again without running. */
    String completedTag;
    /** With {@link #completedTag}, the count its CommandComplete carries ({@code UPDATE 1}), or -1 for none. */
    long completedCount = -1;

    PgPortal(final PgStatement statement, final ParameterValues parameters, final short[] resultFormats) {
        this.statement = statement;
        this.parameters = parameters;
        this.resultFormats = resultFormats;
    }

    /** Forgets an execution whose transaction meld refused, so that the portal runs again from the start. */
    void restart() {
        this.result = null;
        this.rowsSent = 0;
        this.completedTag = null;
        this.completedCount = -1;
    }

    /** Binds this (closed) portal object again: the connection reuses one for the unnamed portal. */
    void rebind(final PgStatement statement, final ParameterValues parameters, final short[] resultFormats) {
        this.statement = statement;
        this.parameters = parameters;
        this.resultFormats = resultFormats;
        this.result = null;
        this.rowsSent = 0;
        this.completedTag = null;
        this.completedCount = -1;
    }
}
