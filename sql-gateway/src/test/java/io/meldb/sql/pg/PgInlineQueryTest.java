package io.meldb.sql.pg;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PgInlineQueryTest {
    @Test
    void transactionControlThatCannotWaitRunsInline() {
        assertTrue(PgInlineQuery.runsInline("ROLLBACK", null));
        assertTrue(PgInlineQuery.runsInline("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", null));
        assertTrue(PgInlineQuery.runsInline("SHOW TimeZone", null));
        assertTrue(PgInlineQuery.runsInline("VACUUM", null));
    }

    @Test
    void whatMayWaitOrPlanGoesToAWorker() {
        assertFalse(PgInlineQuery.runsInline("COMMIT", null), "a COMMIT with writes waits for meld");
        assertFalse(PgInlineQuery.runsInline("SELECT 1", null));
        assertFalse(PgInlineQuery.runsInline("SET search_path TO s", null), "changes the session's schema");
        assertFalse(PgInlineQuery.runsInline("UPDATE t SET a = 1 WHERE id = 2", null));
        assertFalse(PgInlineQuery.runsInline("ROLLBACK TO SAVEPOINT x", null), "an error: the worker answers it");
        assertFalse(PgInlineQuery.runsInline(null, null), "an unterminated string");
        assertFalse(PgInlineQuery.runsInline("BEGIN; " + "x".repeat(80), null), "too long to be one command");
    }
}
