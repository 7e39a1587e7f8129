package io.meldb.sql.dml;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.SqlLexer;
import io.meldb.sql.catalog.SqlLexer.Kind;
import io.meldb.sql.catalog.SqlLexer.Token;

import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL's {@code INSERT INTO t [AS alias] ... ON CONFLICT [(cols) | ON CONSTRAINT name] DO NOTHING | DO UPDATE
 * SET c = expr, ... [WHERE cond]}, which MeldDB's parser (sql-parser) does not read yet: {@link #split} takes
 * the target's alias and the ON CONFLICT clause out of the statement, leaving an INSERT (with its RETURNING clause,
 * if any) that the ordinary write path plans; {@link Upsert} carries the clause out row by row.
 *
 * @param sql           the INSERT without its alias and ON CONFLICT clause
 * @param schema        the target's schema as written (lower-cased unless quoted), or null
 * @param table         the target table's name
 * @param alias         the target's alias, or null
 * @param targetColumns the conflict target's columns, or null when none was given (or a constraint was named)
 * @param constraint    the constraint named by ON CONSTRAINT, or null
 * @param doUpdate      DO UPDATE (else DO NOTHING)
 * @param set           DO UPDATE's assignments, in order
 * @param where         DO UPDATE's WHERE condition as written, or null
 */
public record OnConflictClause(String sql, String schema, String table, String alias, List<String> targetColumns,
                               String constraint, boolean doUpdate, List<Assignment> set, String where) {

    /** {@code column = expression}, the expression as written. */
    public record Assignment(String column, String expression) {
    }

    /** The statement's ON CONFLICT clause taken out, or null when it is no INSERT or has none. */
    public static OnConflictClause split(final String sql) {
        if (!SqlLexer.firstKeyword(sql).equals("INSERT") || !containsConflict(sql)) {
            return null;
        }
        final List<Token> tokens = SqlLexer.tokenize(sql);
        final int on = clauseStart(tokens);
        if (on < 0) {
            return null;
        }
        // INSERT INTO [schema.]table [AS alias]
        if (!tokens.get(1).is("INTO") || tokens.get(2).kind() != Kind.WORD) {
            throw syntax(tokens.get(1));
        }
        int i = 2;
        String schema = null;
        String table = tokens.get(i++).name();
        if (symbol(tokens.get(i), ".") && tokens.get(i + 1).kind() == Kind.WORD) {
            schema = table;
            table = tokens.get(i + 1).name();
            i += 2;
        }
        String alias = null;
        int aliasFrom = -1;
        int aliasTo = -1;
        if (tokens.get(i).is("AS") && tokens.get(i + 1).kind() == Kind.WORD) {
            alias = tokens.get(i + 1).name();
            aliasFrom = tokens.get(i).position();
            aliasTo = tokens.get(i + 2).position();
        }

        int j = on + 2;
        List<String> targetColumns = null;
        String constraint = null;
        if (symbol(tokens.get(j), "(")) {
            targetColumns = new ArrayList<>();
            j++;
            while (true) {
                final Token name = tokens.get(j);
                final Token after = tokens.get(j + 1);
                if (name.kind() != Kind.WORD || !(symbol(after, ",") || symbol(after, ")"))) {
                    throw new SqlStateException("0A000", "ON CONFLICT supports a list of column names as its "
                            + "conflict target, not expressions, COLLATE or operator classes (at \"" + name.text()
                            + "\")");
                }
                targetColumns.add(name.name());
                j += 2;
                if (symbol(after, ")")) {
                    break;
                }
            }
            if (tokens.get(j).is("WHERE")) {
                throw new SqlStateException("0A000", "ON CONFLICT (...) WHERE (inferring a partial unique index) is "
                        + "not supported: MeldDB has no partial indexes");
            }
        } else if (tokens.get(j).is("ON") && tokens.get(j + 1).is("CONSTRAINT")
                && tokens.get(j + 2).kind() == Kind.WORD) {
            constraint = tokens.get(j + 2).name();
            j += 3;
        }
        if (!tokens.get(j).is("DO")) {
            throw syntax(tokens.get(j));
        }
        j++;
        final List<Assignment> set = new ArrayList<>();
        String where = null;
        final boolean doUpdate;
        if (tokens.get(j).is("NOTHING")) {
            doUpdate = false;
            j++;
        } else if (tokens.get(j).is("UPDATE") && tokens.get(j + 1).is("SET")) {
            doUpdate = true;
            if (targetColumns == null && constraint == null) {
                throw new SqlStateException("42601", "ON CONFLICT DO UPDATE requires inference specification or "
                        + "constraint name");
            }
            j += 2;
            while (true) {
                final Token column = tokens.get(j);
                if (symbol(column, "(")) {
                    throw new SqlStateException("0A000", "ON CONFLICT DO UPDATE SET (a, b) = (...) is not "
                            + "supported; write SET a = ..., b = ...");
                }
                if (column.kind() != Kind.WORD || !symbol(tokens.get(j + 1), "=")) {
                    throw syntax(column.kind() == Kind.WORD ? tokens.get(j + 1) : column);
                }
                final int from = j + 2;
                final int to = expressionEnd(tokens, from, true);
                if (to == from) {
                    throw syntax(tokens.get(to));
                }
                if (tokens.get(from).is("DEFAULT") && to == from + 1) {
                    throw new SqlStateException("0A000", "ON CONFLICT DO UPDATE SET column = DEFAULT is not "
                            + "supported");
                }
                set.add(new Assignment(column.name(), text(sql, tokens, from, to)));
                j = to;
                if (!symbol(tokens.get(j), ",")) {
                    break;
                }
                j++;
            }
            if (tokens.get(j).is("WHERE")) {
                final int to = expressionEnd(tokens, j + 1, false);
                if (to == j + 1) {
                    throw syntax(tokens.get(to));
                }
                where = text(sql, tokens, j + 1, to);
                j = to;
            }
        } else {
            throw syntax(tokens.get(j));
        }
        final Token rest = tokens.get(j);
        if (!(rest.kind() == Kind.END || rest.is("RETURNING") || symbol(rest, ";"))) {
            throw syntax(rest);
        }
        final StringBuilder out = new StringBuilder(sql.length());
        if (aliasFrom >= 0) {
            out.append(sql, 0, aliasFrom).append(sql, aliasTo, tokens.get(on).position());
        } else {
            out.append(sql, 0, tokens.get(on).position());
        }
        out.append(' ').append(sql, rest.position(), sql.length());
        return new OnConflictClause(out.toString().strip(), schema, table, alias,
                targetColumns == null ? null : List.copyOf(targetColumns), constraint, doUpdate, List.copyOf(set),
                where);
    }

    /** The index of the top-level ON of ON CONFLICT, or -1. */
    private static int clauseStart(final List<Token> tokens) {
        int depth = 0;
        for (int i = 0; i < tokens.size() - 1; i++) {
            final Token t = tokens.get(i);
            if (symbol(t, "(")) {
                depth++;
            } else if (symbol(t, ")")) {
                depth--;
            } else if (depth == 0 && t.is("ON") && tokens.get(i + 1).is("CONFLICT")) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Where an expression starting at {@code from} ends: at the first top-level comma (when {@code atComma}),
     * WHERE, RETURNING, semicolon or the end.
     */
    private static int expressionEnd(final List<Token> tokens, final int from, final boolean atComma) {
        int depth = 0;
        int i = from;
        while (true) {
            final Token t = tokens.get(i);
            if (t.kind() == Kind.END) {
                return i;
            }
            if (symbol(t, "(")) {
                depth++;
            } else if (symbol(t, ")")) {
                if (depth == 0) {
                    return i;
                }
                depth--;
            } else if (depth == 0 && ((atComma && symbol(t, ",")) || (atComma && t.is("WHERE"))
                    || t.is("RETURNING") || symbol(t, ";"))) {
                return i;
            }
            i++;
        }
    }

    private static String text(final String sql, final List<Token> tokens, final int from, final int to) {
        for (int i = from; i < to; i++) {
            if (symbol(tokens.get(i), "?")) {
                throw new SqlStateException("0A000", "parameters ($n or ?) in ON CONFLICT DO UPDATE are not "
                        + "supported: refer to the row proposed for insertion as EXCLUDED.column");
            }
        }
        return sql.substring(tokens.get(from).position(), tokens.get(to).position()).strip();
    }

    private static boolean symbol(final Token t, final String s) {
        return t.kind() == Kind.SYMBOL && t.text().equals(s);
    }

    private static SqlStateException syntax(final Token at) {
        return new SqlStateException("42601", at.kind() == Kind.END ? "syntax error at end of input"
                : "syntax error at or near \"" + at.text() + "\"");
    }

    private static boolean containsConflict(final String sql) {
        final int n = sql.length() - "conflict".length();
        for (int i = 0; i <= n; i++) {
            if (sql.regionMatches(true, i, "conflict", 0, 8)) {
                return true;
            }
        }
        return false;
    }
}
