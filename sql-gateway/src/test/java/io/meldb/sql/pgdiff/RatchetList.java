package io.meldb.sql.pgdiff;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A checked-in list of corpus statements in a known bad state (differences.txt, refusals.txt,
 * jdbc-differences.txt): one entry per statement, its key ({@code file.sql: statement}) on a line of its own and
 * below it, indented, one line on what each side answered. Lines starting with {@code #} are comments. The list
 * ratchets: a statement in the bad state that the list does not name is a regression, and a named statement no
 * longer in that state makes the list stale; both fail the test until the list is rewritten
 * ({@code -Dpgdiff.write=true}).
 */
final class RatchetList {
    private final Path file;

    RatchetList(final Path file) {
        this.file = file;
    }

    String fileName() {
        return file.getFileName().toString();
    }

    /** The listed keys with their detail lines; empty when the file does not exist yet. */
    Map<String, String> read() throws IOException {
        final Map<String, String> entries = new LinkedHashMap<>();
        if (!Files.exists(file)) {
            return entries;
        }
        String key = null;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            if (Character.isWhitespace(line.charAt(0))) {
                if (key != null) {
                    entries.merge(key, line.strip(), (a, b) -> a.isEmpty() ? b : a + " " + b);
                }
            } else {
                key = line;
                entries.putIfAbsent(key, "");
            }
        }
        return entries;
    }

    void write(final String header, final Map<String, String> entries) throws IOException {
        final List<String> lines = new ArrayList<>();
        for (String h : header.split("\n")) {
            lines.add("# " + h);
        }
        lines.add("# " + entries.size() + " entries");
        for (Map.Entry<String, String> e : entries.entrySet()) {
            lines.add(e.getKey());
            lines.add("    " + e.getValue());
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    /**
     * What is wrong between the list and this run: statements now in the bad state but not listed (regressions), and
     * listed statements no longer in it (the list must shrink); empty when the list is exactly true.
     */
    List<String> problems(final Map<String, String> listed, final Map<String, String> now, final String badState) {
        final List<String> problems = new ArrayList<>();
        for (Map.Entry<String, String> e : now.entrySet()) {
            if (!listed.containsKey(e.getKey())) {
                problems.add("NEW " + badState + " (not in " + fileName() + "): " + e.getKey() + "\n    "
                        + e.getValue());
            }
        }
        for (String k : listed.keySet()) {
            if (!now.containsKey(k)) {
                problems.add("no longer " + badState + " (fixed or removed; shrink " + fileName() + "): " + k);
            }
        }
        return problems;
    }
}
