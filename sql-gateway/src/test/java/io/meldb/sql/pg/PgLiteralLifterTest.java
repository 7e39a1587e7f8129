package io.meldb.sql.pg;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class PgLiteralLifterTest {
    private static void lifts(final String sql, final String shape, final String... literals) {
        final PgLiteralLifter.Lifted l = PgLiteralLifter.lift(sql);
        assertEquals(shape, l == null ? null : l.shape(), sql);
        assertEquals(List.of(literals), l.literals(), sql);
    }

    @Test
    void pgbenchStatementsShareOneShapePerStatement() {
        lifts("UPDATE pgbench_accounts SET abalance = abalance + -4539 WHERE aid = 61234;",
            "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2;", "-4539", "61234");
        lifts("SELECT abalance FROM pgbench_accounts WHERE aid = 61234;",
            "SELECT abalance FROM pgbench_accounts WHERE aid = $1;", "61234");
        lifts("INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (7, 1, 61234, -4539, CURRENT_TIMESTAMP);",
            "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP);",
            "7", "1", "61234", "-4539");
    }

    @Test
    void comparisonsArithmeticAndEveryValuesRowLift() {
        lifts("select * from t where a<5 and b >= 6 and c <> 7", "select * from t where a<$1 and b >= $2 and c <> $3",
            "5", "6", "7");
        lifts("UPDATE t SET n = n - 3, m = m * 2 WHERE id = - 8", "UPDATE t SET n = n - $1, m = m * $2 WHERE id = $3",
            "3", "2", "-8");
        lifts("INSERT INTO t VALUES (1, 'a'), (2, 'b')", "INSERT INTO t VALUES ($1, 'a'), ($2, 'b')", "1", "2");
    }

    @Test
    void literalsWhoseMeaningIsNotAValueStay() {
        assertNull(PgLiteralLifter.lift("SELECT * FROM t ORDER BY 1 LIMIT 10 OFFSET 5"));
        assertNull(PgLiteralLifter.lift("SELECT CAST(a AS VARCHAR(10)), substr(b, 1, 2) FROM t WHERE a IN (1, 2)"));
        assertNull(PgLiteralLifter.lift("SELECT * FROM t WHERE a = 1.5 OR b = 1e3 OR c = 'x'"),
            "decimals, exponents and strings");
        assertNull(PgLiteralLifter.lift("SELECT * FROM t WHERE a = $1"), "a statement with parameters of its own");
        assertNull(PgLiteralLifter.lift("SELECT * FROM t WHERE a = 5::bigint"), "a cast");
        assertNull(PgLiteralLifter.lift("SELECT * FROM t WHERE a = 12345678901234567890"), "too long for a long");
        assertNull(PgLiteralLifter.lift("INSERT INTO t VALUES (f(1, 2))"), "arguments inside a row's item");
        assertNull(PgLiteralLifter.lift("SELECT 'unterminated"));
        lifts("SELECT a FROM t WHERE b = 3 -- = 4\n AND c = 'x = 5'", "SELECT a FROM t WHERE b = $1 -- = 4\n AND c = 'x = 5'",
            "3");
    }
}
