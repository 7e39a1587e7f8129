package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;
import org.junit.jupiter.api.Test;

import static io.meldb.sql.server.SavepointStatement.Action.RELEASE;
import static io.meldb.sql.server.SavepointStatement.Action.ROLLBACK_TO;
import static io.meldb.sql.server.SavepointStatement.Action.SET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SavepointStatementTest {

    @Test
    void parsesPostgresqlsFormsAndFoldsUnquotedNames() {
        assertEquals(new SavepointStatement(SET, "a1"), SavepointStatement.parse("SAVEPOINT A1"));
        assertEquals(new SavepointStatement(SET, "Mixed Case"), SavepointStatement.parse("savepoint \"Mixed Case\";"));
        assertEquals(new SavepointStatement(RELEASE, "a"), SavepointStatement.parse("RELEASE a"));
        assertEquals(new SavepointStatement(RELEASE, "a"), SavepointStatement.parse("release savepoint a"));
        assertEquals(new SavepointStatement(ROLLBACK_TO, "b"), SavepointStatement.parse("ROLLBACK TO b"));
        assertEquals(new SavepointStatement(ROLLBACK_TO, "b"),
                SavepointStatement.parse("ROLLBACK WORK TO SAVEPOINT b"));
        assertEquals(new SavepointStatement(ROLLBACK_TO, "b"), SavepointStatement.parse("abort transaction to b"));
    }

    @Test
    void aPlainRollbackAndOtherStatementsAreNotSavepointStatements() {
        assertNull(SavepointStatement.parse("ROLLBACK"));
        assertNull(SavepointStatement.parse("ROLLBACK WORK"));
        assertNull(SavepointStatement.parse("SELECT 'SAVEPOINT a'"));
        assertNull(SavepointStatement.parse("COMMIT"));
    }

    @Test
    void aMalformedSavepointStatementIsASyntaxError() {
        assertEquals("42601", assertThrows(SqlStateException.class, () -> SavepointStatement.parse("SAVEPOINT"))
                .sqlState());
        assertEquals("42601", assertThrows(SqlStateException.class,
                () -> SavepointStatement.parse("ROLLBACK TO a b")).sqlState());
        assertEquals("42601", assertThrows(SqlStateException.class, () -> SavepointStatement.parse("RELEASE 5"))
                .sqlState());
    }
}
