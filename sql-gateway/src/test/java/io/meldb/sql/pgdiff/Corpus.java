package io.meldb.sql.pgdiff;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The differential tier's corpus: the {@code *.sql} files of {@code src/test/resources/pgdiff/} (format in its
 * README.md). A line is one statement; {@code --} lines are comments; the lines after {@code -- setup} are setup
 * statements (run on every side, not compared) until {@code -- queries}, after which lines are compared queries.
 * A query is keyed by its file name and text, so moving or adding lines changes no key.
 */
final class Corpus {
    /** One corpus file: its setup statements and its compared queries, in file order. */
    record File(String name, List<String> setup, List<String> queries) {
    }

    private Corpus() {
    }

    /** Where the corpus and its ratchet lists live in the source tree (the test runs in the module directory). */
    static Path directory() {
        final Path dir = Path.of("src", "test", "resources", "pgdiff").toAbsolutePath();
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("the pgdiff corpus is not at " + dir + ": run from the sql-gateway module");
        }
        return dir;
    }

    static List<File> load(final Path dir) throws IOException {
        final List<File> files = new ArrayList<>();
        try (Stream<Path> paths = Files.list(dir)) {
            for (Path p : paths.filter(f -> f.toString().endsWith(".sql")).sorted().toList()) {
                files.add(parse(p.getFileName().toString(), Files.readAllLines(p, StandardCharsets.UTF_8)));
            }
        }
        return files;
    }

    static File parse(final String name, final List<String> lines) {
        final List<String> setup = new ArrayList<>();
        final List<String> queries = new ArrayList<>();
        final Set<String> seen = new HashSet<>();
        boolean inSetup = false;
        int n = 0;
        for (String raw : lines) {
            n++;
            final String line = raw.strip();
            if (line.equalsIgnoreCase("-- setup")) {
                inSetup = true;
            } else if (line.equalsIgnoreCase("-- queries")) {
                inSetup = false;
            } else if (!line.isEmpty() && !line.startsWith("--")) {
                if (line.indexOf('\t') >= 0) {
                    throw new IllegalArgumentException(name + ":" + n + ": a tab in a statement");
                }
                final String sql = line.endsWith(";") ? line.substring(0, line.length() - 1).strip() : line;
                if (!seen.add(sql)) {
                    throw new IllegalArgumentException(name + ":" + n + ": the same statement twice: " + sql);
                }
                (inSetup ? setup : queries).add(sql);
            }
        }
        return new File(name, List.copyOf(setup), List.copyOf(queries));
    }

    /** The key of a statement in the ratchet lists and the report. */
    static String key(final String file, final String sql) {
        return file + ": " + sql;
    }

    /**
     * Whether the query orders its rows: an ORDER BY outside parentheses and string literals (a window's
     * {@code OVER (ORDER BY ...)} does not order the result). Unordered results are compared as multisets.
     */
    static boolean isOrdered(final String sql) {
        final String s = sql.toUpperCase(Locale.ROOT);
        int depth = 0;
        boolean quoted = false;
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            if (c == '\'') {
                quoted = !quoted;
            } else if (!quoted && c == '(') {
                depth++;
            } else if (!quoted && c == ')') {
                depth--;
            } else if (!quoted && depth == 0 && s.startsWith("ORDER BY", i)
                    && (i == 0 || !Character.isLetterOrDigit(s.charAt(i - 1)))) {
                return true;
            }
        }
        return false;
    }
}
