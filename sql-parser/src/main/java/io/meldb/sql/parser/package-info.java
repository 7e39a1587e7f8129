/**
 * MeldDB's SQL parser (issue 35): {@code MeldSqlParserImpl} and its {@code FACTORY}, the parser every SQL text of
 * the gateway goes through (the gateway's {@code MeldLex} configures Calcite with it). The class is generated at
 * build time, never written by hand nor committed: FMPP fills Calcite's grammar template (calcite-core's
 * {@code codegen/templates/Parser.jj}) with {@code src/main/codegen/config.fmpp} and the productions of
 * {@code src/main/codegen/includes/parserImpls.ftl}, and JavaCC compiles the result ({@code generate.xml} there),
 * as Calcite builds its own server and Babel parsers. A PostgreSQL form MeldDB must read is added there, as
 * grammar; no SQL text is rewritten before this parser reads it. Depends on calcite-core only.
 */
package io.meldb.sql.parser;
