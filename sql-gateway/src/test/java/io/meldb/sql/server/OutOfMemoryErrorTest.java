package io.meldb.sql.server;

import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A txn-server refusing updates at its node-memory limit reaches the client as PostgreSQL's out_of_memory. */
class OutOfMemoryErrorTest {
    @Test
    void nodeMemoryRefusalIsSqlState53200WithTheServersReason() {
        final SqlErrors.Described d = SqlErrors.describe(new TxnException(TxnError.OUT_OF_MEMORY,
            "server 1 holds 1400 MiB of node memory, its limit is 1433 MiB"));
        assertEquals("53200", d.sqlState());
        assertTrue(d.message().startsWith("out of memory for versions; retry later"), d.message());
        assertTrue(d.message().contains("1400 MiB of node memory"), d.message());
    }
}
