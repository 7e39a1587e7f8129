package io.meldb.sql.dml;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.ColumnDef;
import io.meldb.sql.catalog.SqlLexer;
import io.meldb.sql.catalog.SqlLexer.Kind;
import io.meldb.sql.catalog.SqlLexer.Token;
import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.fast.FastPlan;

import java.sql.Connection;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * The expressions of {@code ON CONFLICT DO UPDATE SET c = expr, ... WHERE cond}, evaluated by Calcite for one
 * conflicting row at a time: one prepared query reads the existing row by its conflict key (a key lookup) under
 * the target's name or alias, with every {@code EXCLUDED.col} turned into a parameter carrying the value proposed
 * for insertion, and answers the new values and whether the WHERE condition holds. Whatever Calcite evaluates in a
 * SELECT list (functions, CASE, subqueries) works in SET and WHERE.
 */
final class ConflictUpdate implements AutoCloseable {
    private final PreparedStatement statement;
    private final TableDef def;
    /** The column of the proposed row that each EXCLUDED parameter carries, in parameter order. */
    private final int[] excludedColumns;
    /** The conflict key's columns, whose values of the existing row follow the EXCLUDED parameters. */
    private final int[] keyColumns;
    private final int setCount;
    private final boolean hasWhere;

    private ConflictUpdate(final PreparedStatement statement, final TableDef def, final int[] excludedColumns,
                           final int[] keyColumns, final int setCount, final boolean hasWhere) {
        this.statement = statement;
        this.def = def;
        this.excludedColumns = excludedColumns;
        this.keyColumns = keyColumns;
        this.setCount = setCount;
        this.hasWhere = hasWhere;
    }

    /** Plans the evaluation of {@code clause}'s SET and WHERE for rows of {@code def} found by {@code keyColumns}. */
    static ConflictUpdate prepare(final OnConflictClause clause, final TableDef def, final int[] keyColumns,
                                  final Connection calcite) {
        for (int c : keyColumns) {
            requireEvaluable(def.columns().get(c));
        }
        for (OnConflictClause.Assignment a : clause.set()) {
            final int c = def.columnIndex(a.column());
            if (c >= 0) {
                requireEvaluable(def.columns().get(c));
            }
        }
        final List<Integer> excluded = new ArrayList<>();
        final String name = clause.alias() != null ? clause.alias() : def.name();
        final StringBuilder sql = new StringBuilder("SELECT ");
        for (int i = 0; i < clause.set().size(); i++) {
            sql.append(i == 0 ? "" : ", ").append('(')
                    .append(rewrite(clause.set().get(i).expression(), def, name, excluded)).append(')');
        }
        if (clause.where() != null) {
            sql.append(", CASE WHEN (").append(rewrite(clause.where(), def, name, excluded))
                    .append(") THEN TRUE ELSE FALSE END");
        }
        sql.append(" FROM ").append(quote(def.schema())).append('.').append(quote(def.name())).append(" AS ")
                .append(quote(name)).append(" WHERE ");
        for (int i = 0; i < keyColumns.length; i++) {
            sql.append(i == 0 ? "" : " AND ").append(quote(name)).append('.')
                    .append(quote(def.columns().get(keyColumns[i]).name())).append(" = ?");
        }
        try {
            return new ConflictUpdate(calcite.prepareStatement(sql.toString()), def,
                    excluded.stream().mapToInt(Integer::intValue).toArray(), keyColumns, clause.set().size(),
                    clause.where() != null);
        } catch (SQLException e) {
            throw new SqlStateException(e.getSQLState() == null ? "42601" : e.getSQLState(),
                    "in ON CONFLICT DO UPDATE: " + e.getMessage().lines().findFirst().orElse(""), e);
        }
    }

    /**
     * The new values of the SET columns for {@code existing} given the proposed row {@code excluded} (both in
     * stored form), with one more slot: {@code Boolean.TRUE} when the WHERE condition holds (or there is none).
     * Null when the existing row is gone (it cannot be: it was read in this transaction).
     */
    Object[] evaluate(final Object[] existing, final Object[] excluded) {
        try {
            int p = 1;
            for (int c : excludedColumns) {
                statement.setObject(p++, jdbc(def.columns().get(c).type(), excluded[c]));
            }
            for (int c : keyColumns) {
                statement.setObject(p++, jdbc(def.columns().get(c).type(), existing[c]));
            }
            try (ResultSet rs = statement.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                final Object[] out = new Object[setCount + 1];
                for (int i = 0; i < setCount; i++) {
                    out[i] = stored(rs.getObject(i + 1));
                }
                out[setCount] = !hasWhere || rs.getBoolean(setCount + 1);
                return out;
            }
        } catch (SQLException e) {
            final Throwable cause = e.getCause();
            if (cause instanceof SqlStateException s) {
                throw s;
            }
            throw new SqlStateException(e.getSQLState() == null ? "XX000" : e.getSQLState(),
                    "in ON CONFLICT DO UPDATE: " + e.getMessage().lines().findFirst().orElse(""), e);
        }
    }

    /**
     * The expression with each {@code EXCLUDED.col} replaced by a typed parameter (its column noted), and the
     * target's name or alias quoted where it qualifies a column (an alias such as {@code old} is a reserved word to
     * Calcite).
     */
    private static String rewrite(final String expression, final TableDef def, final String target,
                                  final List<Integer> excluded) {
        final List<Token> tokens = SqlLexer.tokenize(expression);
        final StringBuilder out = new StringBuilder(expression.length() + 16);
        int copied = 0;
        for (int i = 0; i + 2 < tokens.size(); i++) {
            final Token t = tokens.get(i);
            if (t.is("EXCLUDED") && tokens.get(i + 1).kind() == Kind.SYMBOL && tokens.get(i + 1).text().equals(".")
                    && tokens.get(i + 2).kind() == Kind.WORD) {
                final Token column = tokens.get(i + 2);
                final int c = def.columnIndex(column.name());
                if (c < 0) {
                    throw new SqlStateException("42703", "column excluded." + column.name() + " does not exist");
                }
                excluded.add(c);
                out.append(expression, copied, t.position()).append("CAST(? AS ")
                        .append(sqlType(def.columns().get(c))).append(')');
                copied = endOf(expression, column);
                i += 2;
            } else if (t.kind() == Kind.WORD && t.name().equals(target) && tokens.get(i + 1).kind() == Kind.SYMBOL
                    && tokens.get(i + 1).text().equals(".") && (i == 0 || !isDot(tokens.get(i - 1)))) {
                out.append(expression, copied, t.position()).append(quote(target));
                copied = endOf(expression, t);
            }
        }
        return out.append(expression, copied, expression.length()).toString();
    }

    private static boolean isDot(final Token t) {
        return t.kind() == Kind.SYMBOL && t.text().equals(".");
    }

    /** Where a word token ends in the text (a quoted one ends after its closing quote). */
    private static int endOf(final String text, final Token word) {
        if (!word.quoted()) {
            return word.position() + word.text().length();
        }
        int i = word.position() + 1;
        while (i < text.length()) {
            if (text.charAt(i) == '"') {
                if (i + 1 < text.length() && text.charAt(i + 1) == '"') {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        return text.length();
    }

    private static String sqlType(final ColumnDef column) {
        final ColumnType t = column.type();
        return switch (t.type()) {
            case SMALLINT -> "SMALLINT";
            case INTEGER -> "INTEGER";
            case BIGINT -> "BIGINT";
            case DECIMAL -> t.unconstrained() ? "DECIMAL" : "DECIMAL(" + t.precision() + ", " + t.scale() + ")";
            case DOUBLE -> "DOUBLE";
            case CHAR, VARCHAR -> "VARCHAR"; // no length: the write checks it (22001), a cast would cut
            case BOOLEAN -> "BOOLEAN";
            case DATE -> "DATE";
            case TIMESTAMP -> "TIMESTAMP(3)";
            case REAL -> "REAL";
            case TEXT, JSON, UUID -> "VARCHAR";
            case BYTEA -> "VARBINARY";
            case TIME, TIMESTAMPTZ -> throw notEvaluable(column);
        };
    }

    /**
     * TIME and TIMESTAMPTZ values do not yet cross the internal Calcite connection this evaluation uses exactly
     * (its JDBC conversions go through the JVM's zone): refused rather than written shifted.
     */
    private static void requireEvaluable(final ColumnDef column) {
        final var t = column.type().type();
        if (t == io.meldb.sql.codec.SqlType.TIME || t == io.meldb.sql.codec.SqlType.TIMESTAMPTZ) {
            throw notEvaluable(column);
        }
    }

    private static SqlStateException notEvaluable(final ColumnDef column) {
        return new SqlStateException("0A000", "ON CONFLICT DO UPDATE over column \"" + column.name() + "\" of type "
                + column.type().sqlName() + " is not supported yet (TIME and TIMESTAMPTZ columns in its conflict "
                + "target, SET list or EXCLUDED references)");
    }

    /** A stored value as the parameter JDBC takes (dates and timestamps as the PostgreSQL front end sets them). */
    private static Object jdbc(final ColumnType type, final Object v) {
        final Object external = FastPlan.external(type, v);
        if (external instanceof LocalDate d) {
            return Date.valueOf(d);
        }
        if (external instanceof LocalDateTime t) {
            return Timestamp.valueOf(t);
        }
        return external;
    }

    /** A value from Calcite's result set in the form the write coerces from (dates and timestamps made exact). */
    private static Object stored(final Object v) {
        if (v instanceof Timestamp t) {
            return t.toLocalDateTime().toInstant(ZoneOffset.UTC).toEpochMilli();
        }
        if (v instanceof Date d) {
            return (int) d.toLocalDate().toEpochDay();
        }
        return v;
    }

    private static String quote(final String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    @Override
    public void close() {
        try {
            statement.close();
        } catch (SQLException e) {
            // closing a Calcite statement only releases memory
        }
    }
}
