/**
 * MeldDB's SQL engine on Apache Calcite: the schema tree over the catalog as a connection's transaction sees it
 * ({@code MeldRootSchema}, {@code MeldSchema}, {@code MeldTable}, the system schemas), the scans, lookups and writes
 * that run against the transaction ({@code MeldTableScan}, {@code MeldTableModify}), the planner's programs and
 * rules, and PostgreSQL 15's meanings where Calcite's differ: result types ({@code MeldValidator},
 * {@code PgResultTypes}), conversions ({@code MeldConvertlets}), functions Calcite lacks ({@code PgFunctions},
 * {@code GenerateSeries}, {@code JsonFunctions}), and the functions that read the connection through the statement's
 * {@code DataContext} ({@code ContextFunction}: sequences, advisory locks, the session functions of
 * {@code SessionFunctions}). It knows no wire protocol: a front end gives a connection its session
 * ({@code SessionParameters}) through {@code MeldTxnContext}.
 */
package io.meldb.sql.calcite;
