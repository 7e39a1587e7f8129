package io.meldb.sql.client;

import org.apache.calcite.avatica.AvaticaClientRuntimeException;
import org.apache.calcite.avatica.AvaticaSeverity;
import org.apache.calcite.avatica.NoSuchStatementException;
import org.apache.calcite.avatica.remote.Service;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the MeldDB driver reads what Avatica throws: what the gateway forgot, and never an error without a class. */
class ClientErrorsTest {
    private static AvaticaClientRuntimeException fromServer(final String state, final String... traces) {
        return new AvaticaClientRuntimeException("Remote driver error: null", -1, state, AvaticaSeverity.ERROR,
                List.of(traces), new Service.RpcMetadataResponse("127.0.0.1:1"));
    }

    @Test
    void shouldTellAForgottenConnectionFromAForgottenStatementFromAnythingElse() {
        assertEquals(ClientErrors.Lost.CONNECTION, ClientErrors.lost(fromServer("00000",
                "org.apache.calcite.avatica.NoSuchConnectionException\n\tat somewhere")));
        assertEquals(ClientErrors.Lost.STATEMENT, ClientErrors.lost(fromServer("00000",
                "org.apache.calcite.avatica.NoSuchStatementException\n\tat somewhere")));
        assertEquals(ClientErrors.Lost.STATEMENT, ClientErrors.lost(new SQLException(null, null,
                new NoSuchStatementException(null))));
        assertEquals(ClientErrors.Lost.NOTHING, ClientErrors.lost(fromServer("40001",
                "io.meldb.txn.api.TxnException: conflict")));
        assertEquals(ClientErrors.Lost.NOTHING, ClientErrors.lost(new RuntimeException(new IOException("refused"))));
    }

    @Test
    void shouldNeverAnswerANullOrSuccessfulSqlStateNorAMessageThatSaysNull() {
        final SQLException e = (SQLException) ClientErrors.convert(fromServer("00000",
                "java.lang.IllegalStateException: the thing broke\n\tat somewhere"));
        assertEquals("XX000", e.getSQLState());
        assertTrue(e.getMessage().contains("the thing broke"), e.getMessage());
        assertFalse(e.getMessage().contains(": null"), e.getMessage());
        assertEquals("XX000", ClientErrors.specific(new SQLException("odd", (String) null)).getSQLState());
        final SQLException unreachable = ClientErrors.specific(new SQLException("Error while executing SQL \"x\"",
                null, new RuntimeException(new IOException("Connection refused"))));
        assertEquals("08006", unreachable.getSQLState());
        assertInstanceOf(java.sql.SQLNonTransientConnectionException.class, unreachable);
    }

    @Test
    void shouldMakeNoTxnServerYetATransientErrorAndNotAConnectionError() {
        final SQLException e = ClientErrors.create("no transaction server takes transactions now", "57P03", 0, null);
        assertInstanceOf(java.sql.SQLTransientException.class, e);
        assertFalse(e instanceof java.sql.SQLTransientConnectionException, e.getClass().getName());
    }

    @Test
    void shouldReadTheKeywordThatOpensOrEndsATransaction() {
        assertEquals("BEGIN", ClientSession.leadingKeyword("  begin;"));
        assertEquals("ROLLBACK", ClientSession.leadingKeyword("\nRollback to savepoint a"));
        assertEquals("", ClientSession.leadingKeyword(null));
    }
}
