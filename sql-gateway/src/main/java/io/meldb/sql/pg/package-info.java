/**
 * MeldDB's PostgreSQL front end: the v3 wire protocol (PostgreSQL docs, "Frontend/Backend Protocol") over Netty —
 * start-up and authentication ({@code PgStartup}, {@code PgScram}), the simple and extended query flows
 * ({@code PgSimpleQuery}, {@code PgPortals}, {@code PgExecutor}), transaction blocks ({@code PgTransactionBlock}),
 * COPY, cancel requests — with values in PostgreSQL's text and binary forms ({@code PgValues}, {@code PgParameters})
 * and columns described by PostgreSQL's types ({@code PgColumns}). The commands it runs itself (SET, SHOW, BEGIN,
 * ...: {@code PgCommand}) keep the session's settings ({@code PgSettings}), which the SQL engine's session functions
 * read and write through {@code PgSessionParameters}; every other statement goes to the SQL engine.
 */
package io.meldb.sql.pg;
