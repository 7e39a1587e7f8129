package io.meldb.sql.pgdiff;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The differential tier's counts and report: verdicts per corpus file and in total, then every statement that was
 * not identical with both answers, and the notes (refused session statements, lost connections, hung statements,
 * internal errors). {@link #write(Path)} puts it under {@code target/}; {@link #counts()} is the line the test prints.
 */
final class DiffReport {
    private final String title;
    private final Map<String, Map<Verdict, Integer>> perFile = new TreeMap<>();
    private final Map<Verdict, Integer> total = new EnumMap<>(Verdict.class);
    private final List<String> details = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    DiffReport(final String title) {
        this.title = title;
        for (Verdict v : Verdict.values()) {
            total.put(v, 0);
        }
    }

    void add(final String file, final String key, final OutcomeComparer.Comparison c) {
        perFile.computeIfAbsent(file, f -> new EnumMap<>(Verdict.class)).merge(c.verdict(), 1, Integer::sum);
        total.merge(c.verdict(), 1, Integer::sum);
        if (c.verdict() != Verdict.IDENTICAL) {
            details.add(c.verdict() + "  " + key + "\n    " + c.summary());
        }
    }

    void note(final String note) {
        notes.add(note);
    }

    int count(final Verdict v) {
        return total.get(v);
    }

    String counts() {
        int n = 0;
        for (int c : total.values()) {
            n += c;
        }
        return title + ": " + n + " queries: " + total.get(Verdict.IDENTICAL) + " identical, "
                + total.get(Verdict.REFUSES) + " refused, " + total.get(Verdict.BOTH_REFUSE) + " both refuse, "
                + (total.get(Verdict.DIFFERENT) + total.get(Verdict.ACCEPTS_INVALID)) + " different ("
                + total.get(Verdict.DIFFERENT) + " answered differently, " + total.get(Verdict.ACCEPTS_INVALID)
                + " accepted what the reference refuses)";
    }

    void write(final Path file) throws IOException {
        final List<String> lines = new ArrayList<>();
        lines.add(counts());
        lines.add("");
        lines.add(String.format("%-24s %9s %8s %11s %9s %15s", "file", "identical", "refuses", "both-refuse",
                "different", "accepts-invalid"));
        for (Map.Entry<String, Map<Verdict, Integer>> e : perFile.entrySet()) {
            final Map<Verdict, Integer> m = e.getValue();
            lines.add(String.format("%-24s %9d %8d %11d %9d %15d", e.getKey(), m.getOrDefault(Verdict.IDENTICAL, 0),
                    m.getOrDefault(Verdict.REFUSES, 0), m.getOrDefault(Verdict.BOTH_REFUSE, 0),
                    m.getOrDefault(Verdict.DIFFERENT, 0), m.getOrDefault(Verdict.ACCEPTS_INVALID, 0)));
        }
        lines.add("");
        lines.add("Notes (" + notes.size() + "):");
        notes.forEach(n -> lines.add("  " + n));
        lines.add("");
        lines.add("Statements not identical (" + details.size() + "):");
        lines.addAll(details);
        Files.createDirectories(file.getParent());
        Files.write(file, lines, StandardCharsets.UTF_8);
    }
}
