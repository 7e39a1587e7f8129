package io.meldb.txn.api;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TxnRetryTest {
    /** A service whose commits fail with the given errors, in order, then succeed; it records what each session saw. */
    private static final class ScriptedService implements TxnService {
        final List<TxnError> commitFailures;
        final List<String> calls = new ArrayList<>();
        int begun;

        ScriptedService(final List<TxnError> commitFailures) {
            this.commitFailures = new ArrayList<>(commitFailures);
        }

        @Override
        public TxnSession begin(final IsolationLevel isolation, final boolean readOnly) {
            begun++;
            calls.add("begin " + isolation + (readOnly ? " ro" : " rw"));
            return (TxnSession) Proxy.newProxyInstance(TxnSession.class.getClassLoader(), new Class<?>[]{TxnSession.class},
                    (proxy, method, args) -> {
                        calls.add(method.getName());
                        if (method.getName().equals("commit")) {
                            if (!commitFailures.isEmpty()) {
                                final TxnError e = commitFailures.remove(0);
                                throw new TxnException(e, "scripted " + e);
                            }
                            return 42L;
                        }
                        return null;
                    });
        }

        @Override
        public TxnOutcome outcome(final TxnId id) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ServerStatus status() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    }

    @Test
    void shouldRunTheWorkAgainAfterAConflictAndReturnWhatTheCommittedAttemptReturned() {
        final ScriptedService service = new ScriptedService(List.of(TxnError.CONFLICT, TxnError.CONFLICT));
        final int[] runs = {0};
        final String result = TxnRetry.inTransaction(service, IsolationLevel.SERIALIZABLE, 5, s -> {
            s.put(new byte[]{1}, new byte[]{2});
            return "attempt " + ++runs[0];
        });
        assertEquals("attempt 3", result);
        assertEquals(3, service.begun);
        assertEquals(List.of("begin SERIALIZABLE rw", "put", "commit", "close", "begin SERIALIZABLE rw", "put", "commit",
                "close", "begin SERIALIZABLE rw", "put", "commit", "close"), service.calls);
    }

    @Test
    void shouldGiveUpAfterMaxAttemptsWithAConflictThatSaysHowMany() {
        final ScriptedService service = new ScriptedService(List.of(TxnError.CONFLICT, TxnError.CONFLICT, TxnError.CONFLICT));
        final TxnException e = assertThrows(TxnException.class,
                () -> TxnRetry.inTransaction(service, IsolationLevel.SNAPSHOT, 3, s -> null));
        assertEquals(TxnError.CONFLICT, e.error());
        assertTrue(e.getMessage().startsWith("gave up after 3 attempts"), e.getMessage());
        assertEquals(3, service.begun);
    }

    @Test
    void shouldNeverRetryACommitWhoseOutcomeIsUnknownOrTimedOut() {
        for (TxnError error : List.of(TxnError.OUTCOME_UNKNOWN, TxnError.TIMEOUT, TxnError.SESSION_LOST)) {
            final ScriptedService service = new ScriptedService(List.of(error));
            final TxnException e = assertThrows(TxnException.class,
                    () -> TxnRetry.inTransaction(service, IsolationLevel.SERIALIZABLE, 10, s -> null));
            assertEquals(error, e.error());
            assertEquals(1, service.begun, error + " was retried");
        }
    }

    @Test
    void shouldRefuseFewerThanOneAttempt() {
        assertThrows(IllegalArgumentException.class,
                () -> TxnRetry.inTransaction(new ScriptedService(List.of()), IsolationLevel.SNAPSHOT, 0, s -> null));
    }
}
