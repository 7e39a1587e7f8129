package io.meldb.sql.dml;

import io.meldb.sql.SqlStateException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What {@link OnConflictClause} and {@link LockingClause} take out of a statement, and what they leave. */
class ClauseSplitTest {
    @Test
    void onConflictLeavesThePlainInsertWithItsReturning() {
        final OnConflictClause c = OnConflictClause.split("INSERT INTO s.t AS o (a, b) VALUES (1, 'x, y') "
                + "ON CONFLICT (a, \"B\") DO UPDATE SET b = excluded.b || ',', a = f(o.a, 2) WHERE o.a > 0 "
                + "RETURNING *");
        assertEquals("INSERT INTO s.t (a, b) VALUES (1, 'x, y')  RETURNING *", c.sql());
        assertEquals("s", c.schema());
        assertEquals("t", c.table());
        assertEquals("o", c.alias());
        assertEquals(List.of("a", "B"), c.targetColumns());
        assertTrue(c.doUpdate());
        assertEquals(List.of(new OnConflictClause.Assignment("b", "excluded.b || ','"),
                new OnConflictClause.Assignment("a", "f(o.a, 2)")), c.set());
        assertEquals("o.a > 0", c.where());
    }

    @Test
    void onConflictDoNothingWithAConstraintOrNoTarget() {
        final OnConflictClause named = OnConflictClause.split("insert into t select * from u "
                + "on conflict on constraint t_pkey do nothing;");
        assertEquals("t_pkey", named.constraint());
        assertFalse(named.doUpdate());
        assertEquals("insert into t select * from u  ;", named.sql());
        final OnConflictClause none = OnConflictClause.split("INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING");
        assertNull(none.targetColumns());
        assertNull(none.constraint());
        assertNull(OnConflictClause.split("INSERT INTO conflict VALUES (1)"), "no clause");
        assertNull(OnConflictClause.split("SELECT 'on conflict'"));
    }

    @Test
    void onConflictRefusesWhatItCannotRun() {
        assertEquals("42601", state("INSERT INTO t VALUES (1) ON CONFLICT DO UPDATE SET a = 1"));
        assertEquals("42601", state("INSERT INTO t VALUES (1) ON CONFLICT (a) DO"));
        assertEquals("0A000", state("INSERT INTO t VALUES (1) ON CONFLICT (lower(a)) DO NOTHING"));
        assertEquals("0A000", state("INSERT INTO t VALUES (1) ON CONFLICT (a) WHERE a > 0 DO NOTHING"));
        assertEquals("0A000", state("INSERT INTO t VALUES (?) ON CONFLICT (a) DO UPDATE SET b = ?"));
    }

    @Test
    void lockingClausesComeOutWhereverTheyStand() {
        final LockingClause all = LockingClause.split("SELECT * FROM t WHERE a = 1 FOR UPDATE");
        assertEquals("SELECT * FROM t WHERE a = 1", all.sql());
        assertTrue(all.allTables());
        final LockingClause of = LockingClause.split("select * from s.t join u on t.a = u.a "
                + "for no key update of s.t, u nowait for key share of u skip locked limit 3");
        assertEquals("select * from s.t join u on t.a = u.a   limit 3", of.sql());
        assertEquals(List.of("t", "u", "u"), of.tables());
        assertNull(LockingClause.split("SELECT substring(a FROM 1 FOR 2) FROM t"), "FOR inside parentheses");
        assertNull(LockingClause.split("SELECT 'for update' FROM t"));
        assertNull(LockingClause.split("UPDATE t SET a = 1"));
    }

    private static String state(final String sql) {
        return assertThrows(SqlStateException.class, () -> OnConflictClause.split(sql), sql).sqlState();
    }
}
