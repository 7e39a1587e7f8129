package io.meldb.sql.tools;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The steps a client script of the compatibility tier reports, one line each: {@code OK <step> <value>} or
 * {@code FAIL <step> <error>}; and the check of them against PostgreSQL 15's answers.
 */
final class ClientSteps {
    private static final String OUTPUT = "(output)";

    private ClientSteps() {
    }

    /** Each of {@code steps} as the script reported it: "OK value" or its FAIL line. The script must exit 0. */
    static Map<String, String> parse(final int exitCode, final String output, final Collection<String> steps) {
        assertEquals(0, exitCode, output);
        final Map<String, String> seen = new LinkedHashMap<>();
        for (String line : output.split("\n")) {
            // the longest step name the line reports ("migrate latest again" is not "migrate latest")
            String step = null;
            for (String s : steps) {
                final boolean reports = line.startsWith("OK " + s + " ") || line.equals("OK " + s)
                        || line.startsWith("FAIL " + s + " ");
                if (reports && (step == null || s.length() > step.length())) {
                    step = s;
                }
            }
            if (step != null) {
                seen.put(step, line.startsWith("OK ") ? "OK " + line.substring(("OK " + step).length()).trim() : line);
            }
        }
        seen.put(OUTPUT, output);
        return seen;
    }

    /**
     * Asserts every step answered as {@code expected} (PostgreSQL 15's answers), except those of {@code notYet},
     * which must still fail, so that the list shrinks when they start working.
     */
    static void assertSteps(final Map<String, String> expected, final Collection<String> notYet,
                            final Map<String, String> seen) {
        final String output = seen.get(OUTPUT);
        for (Map.Entry<String, String> e : expected.entrySet()) {
            final String got = seen.get(e.getKey());
            if (notYet.contains(e.getKey())) {
                assertTrue(got != null && got.startsWith("FAIL"), () -> "step '" + e.getKey()
                        + "' now runs: take it off NOT_YET if it answers as PostgreSQL does:\n" + output);
            } else {
                assertEquals("OK " + e.getValue(), got, () -> "step '" + e.getKey() + "':\n" + output);
            }
        }
    }
}
