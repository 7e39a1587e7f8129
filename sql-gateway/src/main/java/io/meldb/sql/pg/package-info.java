/**
 * MeldDB's PostgreSQL front end (docs/sql.md "PostgreSQL protocol"): the v3 wire protocol over Netty
 * ({@link io.meldb.sql.pg.PgServer}, {@link io.meldb.sql.pg.PgConnection}) as a thin adapter over the SQL engine
 * ({@link io.meldb.sql.server.SqlSession}): start-up and authentication, the simple and extended query protocols,
 * transaction blocks, session settings, COPY, SQL cursors ({@link io.meldb.sql.pg.PgCursors}), and PostgreSQL's
 * encodings of every value. The commands it runs itself (SET, SHOW, BEGIN, ...: {@code PgCommand}) keep the
 * session's settings ({@code PgSettings}), which the SQL engine's session functions read and write through
 * {@code PgSessionParameters}. Its system catalogs are {@code io.meldb.sql.pg.catalog}'s.
 */
package io.meldb.sql.pg;
