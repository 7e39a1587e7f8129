package io.meldb.sql.pgdiff;

import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * What one statement answered on one target: either an error (its SQLSTATE and message) or a result: per column the
 * driver's type name and java.sql.Types family, per row each value as {@code getString} text and as a normalised
 * {@code getObject} ({@link ValueText}). A statement without a result set answers no columns and no rows.
 * {@code note} says what else happened (the connection broke, the statement hung).
 */
record QueryOutcome(String sqlState, String message, List<String> typeNames, List<String> families,
                    List<List<String>> texts, List<List<String>> objects, String note) {
    /** Rows read at most; the corpus's queries answer far fewer. */
    static final int MAX_ROWS = 1000;

    boolean isError() {
        return sqlState != null;
    }

    static QueryOutcome error(final String sqlState, final String message, final String note) {
        return new QueryOutcome(sqlState == null ? "?????" : sqlState, message == null ? "" : message, List.of(),
                List.of(), List.of(), List.of(), note);
    }

    static QueryOutcome error(final Throwable e) {
        final SQLException sql = sqlException(e);
        return sql != null ? error(sql.getSQLState(), oneLine(sql.getMessage()), null)
                : error("?????", oneLine(e.getClass().getSimpleName() + ": " + e.getMessage()), null);
    }

    static QueryOutcome noResult() {
        return new QueryOutcome(null, null, List.of(), List.of(), List.of(), List.of(), null);
    }

    QueryOutcome withNote(final String n) {
        return new QueryOutcome(sqlState, message, typeNames, families, texts, objects,
                note == null ? n : note + "; " + n);
    }

    static QueryOutcome read(final ResultSet rs) throws SQLException {
        final ResultSetMetaData md = rs.getMetaData();
        final int n = md.getColumnCount();
        final List<String> names = new ArrayList<>(n);
        final List<String> families = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
            String name;
            try {
                name = md.getColumnTypeName(i);
            } catch (SQLException | RuntimeException e) {
                name = "?type-name failed: " + oneLine(e.getMessage());
            }
            names.add(name);
            families.add(ValueText.family(md.getColumnType(i)));
        }
        final List<List<String>> texts = new ArrayList<>();
        final List<List<String>> objects = new ArrayList<>();
        while (texts.size() < MAX_ROWS && rs.next()) {
            final List<String> t = new ArrayList<>(n);
            final List<String> o = new ArrayList<>(n);
            for (int i = 1; i <= n; i++) {
                try {
                    t.add(rs.getString(i));
                } catch (SQLException | RuntimeException e) {
                    t.add("!getString failed: " + oneLine(e.getMessage()));
                }
                try {
                    o.add(ValueText.of(rs.getObject(i)));
                } catch (SQLException | RuntimeException e) {
                    o.add("!getObject failed: " + oneLine(e.getMessage()));
                }
            }
            texts.add(t);
            objects.add(o);
        }
        return new QueryOutcome(null, null, List.copyOf(names), List.copyOf(families), texts, objects, null);
    }

    private static SQLException sqlException(final Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
                return s;
            }
        }
        return null;
    }

    static String oneLine(final String s) {
        if (s == null) {
            return "";
        }
        // a thread's name differs from run to run; the lists keep only what the answer says
        final String line = s.replaceAll(" ?\\[in thread \"[^\"]*\"\\]", "").replaceAll("\\s+", " ").strip();
        return line.length() > 300 ? line.substring(0, 300) + "..." : line;
    }
}
