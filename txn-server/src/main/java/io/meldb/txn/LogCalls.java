package io.meldb.txn;

import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waiting for an answer of the log, with the error a txn-server reports when it does not come. */
public final class LogCalls {
    private LogCalls() {
    }

    /** The result of a log request, or UNAVAILABLE after 30 s, on interrupt or when the request failed. */
    public static <T> T join(final CompletableFuture<T> future) {
        try {
            return future.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TxnException(TxnError.UNAVAILABLE, "interrupted while talking to the log");
        } catch (ExecutionException e) {
            throw new TxnException(TxnError.UNAVAILABLE, "log request failed: " + e.getCause().getMessage(),
                e.getCause());
        } catch (TimeoutException e) {
            throw new TxnException(TxnError.UNAVAILABLE, "the log did not answer within 30 s");
        }
    }
}
