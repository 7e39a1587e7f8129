package io.meldb.sql.jdbc;

import org.apache.calcite.avatica.Meta;

import java.util.concurrent.CompletableFuture;

/**
 * What the JDBC endpoint ({@link JdbcServer}) serves: an Avatica {@link Meta} that also says which of its requests
 * can never wait, so that the endpoint runs those on its I/O thread instead of handing them to a worker. MeldDB's
 * {@code MeldMeta} is the one a gateway serves; the SQL benchmark serves a no-op one as this machine's floor.
 */
public interface InlineMeta extends Meta {
    /** Whether executing this prepared statement can never wait (network, admission, meld). */
    boolean runsWithoutWaiting(String connectionId, int statementId);

    /** Whether {@link #commitAsync} can end transactions without waiting. */
    boolean commitsWithoutWaiting();

    /** Commits the connection's transaction; the future completes with the outcome, or fails as commit throws. */
    CompletableFuture<Void> commitAsync(String connectionId);

    /** A failed {@link #commitAsync} as the error Avatica answers with (its SQLSTATE kept). */
    Exception commitError(Throwable error);
}
