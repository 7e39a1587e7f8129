package io.meldb.sql.pgdiff;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The differential tier's own pieces without a database: corpus parsing, ORDER BY detection, ratchets, verdicts. */
class RatchetAndCorpusTest {
    @TempDir
    Path dir;

    @Test
    void shouldSplitSetupFromQueriesAndStripSemicolons() {
        final Corpus.File f = Corpus.parse("x.sql", List.of("-- about", "-- setup", "CREATE TABLE t (a int);",
                "-- queries", "", "SELECT 1;", "  SELECT 2  "));
        assertEquals(List.of("CREATE TABLE t (a int)"), f.setup());
        assertEquals(List.of("SELECT 1", "SELECT 2"), f.queries());
    }

    @Test
    void shouldRefuseTheSameQueryTwiceInOneFile() {
        assertThrows(IllegalArgumentException.class, () -> Corpus.parse("x.sql", List.of("SELECT 1", "SELECT 1;")));
    }

    @Test
    void shouldCountOnlyATopLevelOrderByAsOrdering() {
        assertTrue(Corpus.isOrdered("SELECT a FROM t ORDER BY a"));
        assertFalse(Corpus.isOrdered("SELECT row_number() OVER (ORDER BY a) FROM t"));
        assertFalse(Corpus.isOrdered("SELECT 'x ORDER BY y' FROM t"));
        assertFalse(Corpus.isOrdered("SELECT string_agg(a, ',' ORDER BY a) FROM t"));
    }

    @Test
    void shouldFailOnANewEntryAndOnAStaleOneButNotOnAListedOne() throws IOException {
        final RatchetList list = new RatchetList(dir.resolve("refusals.txt"));
        final Map<String, String> listed = new LinkedHashMap<>();
        listed.put("a.sql: SELECT 1", "0A000 not yet");
        listed.put("a.sql: SELECT 2", "0A000 not yet");
        list.write("header\nsecond line", listed);
        final Map<String, String> read = list.read();
        assertEquals(listed.keySet(), read.keySet());
        assertEquals("0A000 not yet", read.get("a.sql: SELECT 1"));

        final Map<String, String> now = new LinkedHashMap<>();
        now.put("a.sql: SELECT 1", "0A000 still");
        now.put("a.sql: SELECT 3", "XX000 new");
        final List<String> problems = list.problems(read, now, "refused");
        assertEquals(2, problems.size(), problems.toString());
        assertTrue(problems.get(0).startsWith("NEW refused (not in refusals.txt): a.sql: SELECT 3"), problems.get(0));
        assertTrue(problems.get(1).startsWith("no longer refused"), problems.get(1));
    }

    @Test
    void shouldCompareUnorderedRowsAsMultisetsAndOrderedRowsInOrder() {
        final OutcomeComparer comparer = new OutcomeComparer(OutcomeComparer.Mode.TEXT, "pg", "meld");
        final QueryOutcome ab = rows(List.of("a"), List.of("b"));
        final QueryOutcome ba = rows(List.of("b"), List.of("a"));
        assertEquals(Verdict.IDENTICAL, comparer.compare(ab, ba, false).verdict());
        assertEquals(Verdict.DIFFERENT, comparer.compare(ab, ba, true).verdict());
        final QueryOutcome error = QueryOutcome.error("0A000", "not supported", null);
        assertEquals(Verdict.REFUSES, comparer.compare(ab, error, false).verdict());
        assertEquals(Verdict.ACCEPTS_INVALID, comparer.compare(error, ab, false).verdict());
        assertEquals(Verdict.BOTH_REFUSE, comparer.compare(error, error, false).verdict());
        final QueryOutcome otherType = new QueryOutcome(null, null, List.of("varchar"), List.of("varchar"),
                ab.texts(), ab.objects(), null);
        assertEquals(Verdict.DIFFERENT, comparer.compare(ab, otherType, false).verdict());
    }

    private static QueryOutcome rows(final List<String> first, final List<String> second) {
        return new QueryOutcome(null, null, List.of("text"), List.of("varchar"), List.of(first, second),
                List.of(first, second), null);
    }
}
