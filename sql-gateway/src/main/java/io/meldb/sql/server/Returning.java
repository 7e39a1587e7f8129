package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.calcite.MeldLex;
import io.meldb.sql.catalog.Catalog;
import io.meldb.sql.catalog.ColumnDef;
import io.meldb.sql.catalog.SqlLexer;
import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;
import io.meldb.sql.fast.FastPlan;
import org.apache.calcite.sql.SqlDelete;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlUpdate;
import org.apache.calcite.sql.parser.SqlParseException;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code INSERT | UPDATE | DELETE ... RETURNING items} (PostgreSQL; what pgjdbc sends for getGeneratedKeys): the
 * statement runs without its RETURNING clause while the rows it writes are captured (as stored: after defaults,
 * sequences and coercion; for DELETE the removed rows), and the clause picks their columns. Items are {@code *},
 * column names and qualified ones ({@code t.col}, {@code schema.t.col}, {@code t.*}: resolved against the written
 * table, {@link ReturningTarget}), each column with an optional alias; anything else is 0A000.
 *
 * @param sql      the statement without its RETURNING clause
 * @param tableId  the table written
 * @param columns  positions in the table's rows of each result column
 * @param result   the result's columns as front ends describe them
 */
public record Returning(String sql, int tableId, int[] columns, List<ResultColumn> result) {

    /** Whether {@code sql} is an INSERT, UPDATE or DELETE with a RETURNING clause (at the top level). */
    public static boolean present(final String sql) {
        final String first = SqlLexer.firstKeyword(sql);
        if (!first.equals("INSERT") && !first.equals("UPDATE") && !first.equals("DELETE")) {
            return false;
        }
        return clauseStart(SqlLexer.tokenize(sql)) >= 0;
    }

    /** The index of the top-level RETURNING token, or -1. */
    private static int clauseStart(final List<SqlLexer.Token> tokens) {
        int depth = 0;
        int at = -1;
        for (int i = 0; i < tokens.size(); i++) {
            final SqlLexer.Token t = tokens.get(i);
            if (t.kind() == SqlLexer.Kind.SYMBOL && t.text().equals("(")) {
                depth++;
            } else if (t.kind() == SqlLexer.Kind.SYMBOL && t.text().equals(")")) {
                depth--;
            } else if (depth == 0 && t.is("RETURNING")) {
                at = i;
            }
        }
        return at;
    }

    /** The statement's RETURNING, or null when it has none. */
    public static Returning of(final String sql, final Catalog catalog, final String database, final String schema) {
        return of(sql, catalog, database, schema, null);
    }

    /**
     * The statement's RETURNING, or null when it has none; {@code targetAlias} is the alias of the written table
     * when a clause reader took it out of the statement (INSERT's {@code AS alias} with ON CONFLICT), else null
     * (UPDATE's and DELETE's alias is read from the statement).
     */
    public static Returning of(final String sql, final Catalog catalog, final String database, final String schema,
                               final String targetAlias) {
        final String first = SqlLexer.firstKeyword(sql);
        if (!first.equals("INSERT") && !first.equals("UPDATE") && !first.equals("DELETE")) {
            return null;
        }
        final List<SqlLexer.Token> tokens = SqlLexer.tokenize(sql);
        final int at = clauseStart(tokens);
        if (at < 0) {
            return null;
        }
        final String dml = sql.substring(0, tokens.get(at).position());
        final ReturningTarget target = target(dml, catalog, database, schema, targetAlias);
        final TableDef table = target.table();
        final int[] columns;
        final List<ResultColumn> result = new ArrayList<>();
        final List<Integer> picked = new ArrayList<>();
        int i = at + 1;
        while (true) {
            final SqlLexer.Token t = tokens.get(i++);
            // a name and the names after it, each after a dot: a column reference, or a qualified star
            final List<String> names = new ArrayList<>();
            boolean star = symbol(t, "*");
            if (t.kind() == SqlLexer.Kind.WORD) {
                names.add(t.name());
                while (symbol(tokens.get(i), ".") && !star) {
                    final SqlLexer.Token part = tokens.get(i + 1);
                    if (part.kind() == SqlLexer.Kind.WORD) {
                        names.add(part.name());
                    } else if (symbol(part, "*")) {
                        star = true;
                    } else {
                        throw unsupported(part);
                    }
                    i += 2;
                }
            }
            if (star) {
                target.star(names);
                for (int c = 0; c < table.columns().size(); c++) {
                    picked.add(c);
                    result.add(column(table.columns().get(c), null));
                }
            } else if (!names.isEmpty()) {
                final int c = target.column(names);
                String alias = null;
                if (tokens.get(i).is("AS")) {
                    i++;
                }
                if (tokens.get(i).kind() == SqlLexer.Kind.WORD) {
                    alias = tokens.get(i++).name();
                }
                picked.add(c);
                result.add(column(table.columns().get(c), alias));
            } else {
                throw unsupported(t);
            }
            final SqlLexer.Token next = tokens.get(i++);
            if (next.kind() == SqlLexer.Kind.END || next.kind() == SqlLexer.Kind.SYMBOL && next.text().equals(";")
                    && tokens.get(i).kind() == SqlLexer.Kind.END) {
                break;
            }
            if (!(next.kind() == SqlLexer.Kind.SYMBOL && next.text().equals(","))) {
                throw unsupported(next);
            }
        }
        columns = picked.stream().mapToInt(Integer::intValue).toArray();
        return new Returning(dml, table.id(), columns, List.copyOf(result));
    }

    /** The captured rows (stored form) as the result's rows. */
    public RowCursor cursor(final TableDef def, final List<Object[]> rows) {
        return new RowCursor() {
            private int next = -1;

            @Override
            public boolean next() {
                return ++next < rows.size();
            }

            @Override
            public Object value(final int column) {
                final int c = columns[column];
                final ColumnType type = def.columns().get(c).type();
                return FastPlan.external(type, rows.get(next)[c]);
            }

            @Override
            public void close() {
                next = rows.size();
            }
        };
    }

    private static boolean symbol(final SqlLexer.Token t, final String symbol) {
        return t.kind() == SqlLexer.Kind.SYMBOL && t.text().equals(symbol);
    }

    /** The written table and its alias: from the parsed statement (UPDATE, DELETE) or {@code targetAlias}. */
    private static ReturningTarget target(final String dml, final Catalog catalog, final String database,
                                          final String schema, final String targetAlias) {
        final SqlNode node;
        try {
            node = MeldLex.parser(dml).parseStmt();
        } catch (SqlParseException e) {
            throw new SqlStateException("42601", "syntax error: " + e.getMessage().lines().findFirst().orElse(""));
        }
        final SqlNode target = node instanceof SqlInsert i ? i.getTargetTable()
                : node instanceof SqlUpdate u ? u.getTargetTable() : node instanceof SqlDelete d ? d.getTargetTable()
                : null;
        if (!(target instanceof SqlIdentifier id) || id.names.size() > 2) {
            throw new SqlStateException("0A000", "RETURNING needs a plain table as the statement's target");
        }
        final String tableSchema = id.names.size() == 2 ? id.names.get(0) : schema;
        final TableDef def = catalog.table(database, tableSchema, id.names.get(id.names.size() - 1));
        if (def == null) {
            throw new SqlStateException("42P01", "relation \"" + id.names.get(id.names.size() - 1)
                    + "\" does not exist");
        }
        final SqlIdentifier alias = node instanceof SqlUpdate u ? u.getAlias()
                : node instanceof SqlDelete d ? d.getAlias() : null;
        return new ReturningTarget(def, alias != null ? alias.getSimple() : targetAlias, catalog, database, schema);
    }

    private static ResultColumn column(final ColumnDef c, final String label) {
        final ColumnType t = c.type();
        return new ResultColumn(label != null ? label : c.name(), t.type().jdbcType(),
                t.type() == SqlType.DECIMAL ? t.precision() : -1, t.type() == SqlType.DECIMAL ? t.scale() : 0, t);
    }

    private static SqlStateException unsupported(final SqlLexer.Token at) {
        return new SqlStateException("0A000", "RETURNING supports * and column names (with aliases), not \""
                + at.text() + "\"");
    }
}
