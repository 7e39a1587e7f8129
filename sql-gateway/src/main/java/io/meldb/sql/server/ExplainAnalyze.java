package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.calcite.OperatorStats;
import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.fast.FastPlan;
import io.meldb.sql.fast.FastPlanner;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.runtime.Hook;
import org.apache.calcite.sql.SqlExplainLevel;
import org.apache.calcite.util.Pair;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PostgreSQL's {@code EXPLAIN ANALYZE statement}, for both front ends: runs the statement (a write writes, as in
 * PostgreSQL), discards its rows, and answers the plan that ran, one line per operator with the rows it
 * produced, the times it was started and the time spent in it (its inputs included), then the planning and
 * execution times. A statement the fast path runs says so (one {@code FastPath(...)} line). Calcite plans the
 * statement with a probe above every operator ({@link io.meldb.sql.calcite.MeldAnalyze}).
 */
public final class ExplainAnalyze {
    /** The one column of the answer, named as PostgreSQL names it. */
    public static final ResultColumn COLUMN = new ResultColumn("QUERY PLAN", java.sql.Types.VARCHAR, -1, 0);
    private static final Pattern PREFIX = Pattern.compile(
            "^\\s*EXPLAIN\\s+(?:(ANALY[SZ]E)(?:\\s+VERBOSE)?\\b|\\(([^)]*)\\))\\s*",
            Pattern.CASE_INSENSITIVE);

    private ExplainAnalyze() {
    }

    /**
     * The statement an {@code EXPLAIN ANALYZE} (or {@code EXPLAIN (ANALYZE[, option ...])}) runs, or null when
     * {@code sql} is no EXPLAIN ANALYZE. Options other than ANALYZE, VERBOSE, COSTS, TIMING, SUMMARY, BUFFERS and
     * FORMAT TEXT are 0A000.
     */
    public static String statement(final String sql) {
        int i = 0;
        while (i < sql.length() && Character.isWhitespace(sql.charAt(i))) {
            i++;
        }
        if (!sql.regionMatches(true, i, "EXPLAIN", 0, 7)) {
            return null; // every other statement: no regex, no allocation
        }
        final Matcher m = PREFIX.matcher(sql);
        if (!m.find()) {
            return null;
        }
        if (m.group(1) == null && !analyzeOption(m.group(2))) {
            return null;
        }
        return sql.substring(m.end());
    }

    /** Whether a parenthesized option list turns ANALYZE on. */
    private static boolean analyzeOption(final String options) {
        boolean analyze = false;
        for (String option : options.split(",")) {
            final String[] words = option.trim().toLowerCase(Locale.ROOT).split("\\s+");
            final String value = words.length > 1 ? words[1] : "true";
            final boolean on = !(value.equals("false") || value.equals("off") || value.equals("0"));
            switch (words[0]) {
                case "analyze", "analyse" -> analyze = on;
                case "verbose", "costs", "timing", "summary", "buffers", "settings", "wal" -> {
                }
                case "format" -> {
                    if (!value.equals("text")) {
                        throw new SqlStateException("0A000", "EXPLAIN (FORMAT " + value.toUpperCase(Locale.ROOT)
                                + ") is not supported; MeldDB answers FORMAT TEXT");
                    }
                }
                default -> throw new SqlStateException("42601", "unrecognized EXPLAIN option \"" + words[0] + "\"");
            }
        }
        return analyze;
    }

    /** Refuses statements EXPLAIN ANALYZE cannot run (before any of it runs). */
    public static void check(final String statement, final StatementKind kind) {
        if ((kind != StatementKind.READ && kind != StatementKind.WRITE) || statement.isBlank()) {
            throw new SqlStateException("42601", "EXPLAIN ANALYZE takes SELECT, VALUES, WITH, INSERT, UPDATE or "
                    + "DELETE");
        }
        if (Returning.present(statement) || StatementClauses.of(statement) != null) {
            throw new SqlStateException("0A000", "EXPLAIN ANALYZE of a statement with RETURNING, ON CONFLICT or "
                    + "FOR UPDATE is not supported");
        }
    }

    /**
     * Runs {@code statement} in {@code state}'s running statement's transaction, through the fast path when
     * {@code fastPath} and it is a key access, else planned by Calcite on {@code calcite}; answers the plan lines.
     */
    public static List<String> run(final Connection calcite, final GatewayConnection state, final String schema,
                                   final String statement, final StatementKind kind, final boolean fastPath) {
        check(statement, kind);
        final long start = System.nanoTime();
        final FastPlan fast = fastPath ? FastPlanner.plan(statement, state.catalog(), SqlEngine.DATABASE, schema)
                : null;
        if (fast != null && fast.reads() == (kind == StatementKind.READ)) {
            return runFast(fast, statement, state, schema, start);
        }
        final OperatorStats stats = new OperatorStats();
        state.clearCancel();
        try (Hook.Closeable program = SqlEngine.withMeldProgram(state::cancelled, stats);
             PreparedStatement ps = calcite.prepareStatement(statement)) {
            if (ps.getParameterMetaData().getParameterCount() > 0) {
                throw new SqlStateException("42P02", "EXPLAIN ANALYZE of a statement with parameters: there is no "
                        + "value for parameter 1");
            }
            final long planned = System.nanoTime();
            if (kind == StatementKind.READ) {
                try (ResultSet rows = ps.executeQuery()) {
                    while (rows.next()) {
                        // the rows are discarded, as PostgreSQL's EXPLAIN ANALYZE does
                    }
                }
            } else {
                ps.executeLargeUpdate();
            }
            final long done = System.nanoTime();
            final List<String> lines = new ArrayList<>(stats.size() + 2);
            for (int i = 0; i < stats.size(); i++) {
                lines.add("  ".repeat(stats.depth(i)) + describe(stats.operator(i))
                        + actual(stats.nanos(i), stats.rows(i), stats.loops(i)));
            }
            lines.add(String.format(Locale.ROOT, "Planning Time: %.3f ms", (planned - start) / 1e6));
            lines.add(String.format(Locale.ROOT, "Execution Time: %.3f ms", (done - planned) / 1e6));
            return lines;
        } catch (SQLException e) {
            throw SqlErrors.toSqlState(e);
        }
    }

    private static List<String> runFast(final FastPlan fast, final String statement, final GatewayConnection state,
                                        final String schema, final long start) {
        if (fast.parameterTypes().length > 0) {
            throw new SqlStateException("42P02", "EXPLAIN ANALYZE of a statement with parameters: there is no "
                    + "value for parameter 1");
        }
        final String described = describeFast(statement, state, schema);
        final long planned = System.nanoTime();
        final TableDef current = state.catalog().tableById(fast.tableId());
        long rows = 0;
        if (fast.reads()) {
            try (RowCursor cursor = fast.query(state.session(), current, new io.meldb.sql.fast.ParameterValues())) {
                while (cursor.next()) {
                    rows++;
                }
            }
        } else {
            rows = fast.update(state.session(), current, state.catalog().foreignKeys(), new io.meldb.sql.fast.ParameterValues(),
                    state.sequences());
        }
        final long done = System.nanoTime();
        return List.of(described + actual(done - planned, rows, 1),
                String.format(Locale.ROOT, "Planning Time: %.3f ms", (planned - start) / 1e6),
                String.format(Locale.ROOT, "Execution Time: %.3f ms", (done - planned) / 1e6));
    }

    /** The fast path's own EXPLAIN line, e.g. {@code FastPath(PointRead table=[public, t] key=[id])}. */
    private static String describeFast(final String statement, final GatewayConnection state, final String schema) {
        final FastPlan explain = FastPlanner.plan("EXPLAIN PLAN FOR " + statement, state.catalog(),
                SqlEngine.DATABASE, schema);
        try (RowCursor line = explain.query(state.session(), null, new io.meldb.sql.fast.ParameterValues())) {
            line.next();
            return String.valueOf(line.value(0));
        }
    }

    private static String actual(final long nanos, final long rows, final long loops) {
        return String.format(Locale.ROOT, "  (actual time=%.3f ms rows=%d loops=%d)", nanos / 1e6, rows, loops);
    }

    /** One operator as Calcite's EXPLAIN writes it, without its inputs: {@code EnumerableCalc(expr#0=[...], ...)}. */
    static String describe(final RelNode rel) {
        final Terms terms = new Terms();
        rel.explain(terms);
        return terms.text.toString();
    }

    /** Collects an operator's terms (not its inputs) as Calcite's plan writer prints them. */
    private static final class Terms implements RelWriter {
        private final List<Pair<String, Object>> values = new ArrayList<>();
        final StringBuilder text = new StringBuilder();

        @Override
        public void explain(final RelNode rel, final List<Pair<String, Object>> valueList) {
            values.addAll(valueList);
            done(rel);
        }

        @Override
        public SqlExplainLevel getDetailLevel() {
            return SqlExplainLevel.EXPPLAN_ATTRIBUTES;
        }

        @Override
        public RelWriter item(final String term, final Object value) {
            if (!(value instanceof RelNode) && !(value instanceof List<?> l && !l.isEmpty()
                    && l.get(0) instanceof RelNode)) {
                values.add(Pair.of(term, value));
            }
            return this;
        }

        @Override
        public RelWriter done(final RelNode rel) {
            text.append(rel.getRelTypeName());
            if (!values.isEmpty()) {
                text.append('(');
                for (int i = 0; i < values.size(); i++) {
                    text.append(i == 0 ? "" : ", ").append(values.get(i).left).append("=[")
                            .append(values.get(i).right).append(']');
                }
                text.append(')');
            }
            values.clear();
            return this;
        }
    }
}
