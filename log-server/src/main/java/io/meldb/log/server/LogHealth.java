package io.meldb.log.server;

import io.meldb.log.LogErrorException;
import io.meldb.log.LogStore;
import io.meldb.wire.MetricsHttpServer;

/** The log server's answer to {@code GET /health} (docs/operations.md): what its store says about itself. */
final class LogHealth {
    private LogHealth() {
    }

    /** DOWN while the store has failed (until a restart) or its disk is below the free-space reserve (until freed). */
    static MetricsHttpServer.Health of(LogStore store) {
        LogErrorException failure = store.failure();
        if (failure == null) {
            failure = store.diskFull();
        }
        if (failure == null) {
            return new MetricsHttpServer.Health(true, "{\"status\":\"UP\",\"created\":" + store.isCreated()
                    + (store.logId() == null ? "" : ",\"logId\":\"" + store.logId() + "\"")
                    + ",\"tail\":" + store.tail() + ",\"trimPoint\":" + store.trimPoint() + "}");
        }
        return new MetricsHttpServer.Health(false, "{\"status\":\"DOWN\",\"error\":\"" + failure.code() + "\",\"message\":\""
                + MetricsHttpServer.jsonEscaped(failure.getMessage()) + "\"}");
    }
}
