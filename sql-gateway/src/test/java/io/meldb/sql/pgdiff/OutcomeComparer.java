package io.meldb.sql.pgdiff;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Compares a candidate's outcome with the reference's: the verdict and a one-line summary of both answers. In
 * {@link Mode#TEXT} (MeldDB against PostgreSQL, both over pgjdbc) columns compare by type name and values by
 * {@code getString}, i.e. the server's text; in {@link Mode#OBJECT} (MeldDB's JDBC front end against its
 * PostgreSQL front end, two drivers) by java.sql.Types family and normalised {@code getObject} ({@link ValueText}).
 * Rows compare in order when the query has an ORDER BY of its own, otherwise as sorted multisets.
 */
final class OutcomeComparer {
    enum Mode { TEXT, OBJECT }

    /** A verdict with both answers in one line (empty when identical). */
    record Comparison(Verdict verdict, String summary) {
    }

    private static final int SUMMARY_CHARS = 240;

    private final Mode mode;
    private final String referenceName;
    private final String candidateName;

    OutcomeComparer(final Mode mode, final String referenceName, final String candidateName) {
        this.mode = mode;
        this.referenceName = referenceName;
        this.candidateName = candidateName;
    }

    Comparison compare(final QueryOutcome reference, final QueryOutcome candidate, final boolean ordered) {
        final Verdict v;
        if (reference.isError() && candidate.isError()) {
            v = Verdict.BOTH_REFUSE;
        } else if (candidate.isError()) {
            v = Verdict.REFUSES;
        } else if (reference.isError()) {
            v = Verdict.ACCEPTS_INVALID;
        } else {
            v = types(reference).equals(types(candidate))
                    && rows(reference, ordered).equals(rows(candidate, ordered)) ? Verdict.IDENTICAL : Verdict.DIFFERENT;
        }
        if (v == Verdict.IDENTICAL) {
            return new Comparison(v, "");
        }
        return new Comparison(v, referenceName + " " + describe(reference, ordered) + " | " + candidateName + " "
                + describe(candidate, ordered));
    }

    private List<String> types(final QueryOutcome o) {
        return mode == Mode.TEXT ? o.typeNames() : o.families();
    }

    private List<List<String>> rows(final QueryOutcome o, final boolean ordered) {
        final List<List<String>> rows = mode == Mode.TEXT ? o.texts() : o.objects();
        if (ordered || rows.size() <= 1) {
            return rows;
        }
        final List<List<String>> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparing(OutcomeComparer::rowText));
        return sorted;
    }

    /** One outcome in a line: the error, or the column types and the rows. */
    String describe(final QueryOutcome o, final boolean ordered) {
        final String s;
        if (o.isError()) {
            s = "ERROR " + o.sqlState() + " " + o.message() + (o.note() == null ? "" : " [" + o.note() + "]");
        } else {
            final StringBuilder b = new StringBuilder("(").append(String.join(", ", types(o))).append(")");
            for (List<String> row : rows(o, ordered)) {
                b.append(' ').append(rowText(row));
                if (b.length() > SUMMARY_CHARS) {
                    break;
                }
            }
            s = b.toString();
        }
        return s.length() > SUMMARY_CHARS ? s.substring(0, SUMMARY_CHARS) + "..." : s;
    }

    private static String rowText(final List<String> row) {
        final List<String> cells = new ArrayList<>(row.size());
        for (String c : row) {
            cells.add(c == null ? "NULL" : "'" + printable(c) + "'");
        }
        return "[" + String.join(", ", cells) + "]";
    }

    /** The text with control characters written as escapes, so that a summary stays one printable line. */
    private static String printable(final String s) {
        final StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
