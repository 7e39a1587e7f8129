package io.meldb.sql.conformance;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;

/** The database every conformance test class runs against: one embedded MeldDB per class, stopped after it. */
@Timeout(120)
abstract class ConformanceTest {
    static EmbeddedGateway db;

    @BeforeAll
    static void startDatabase() {
        db = new EmbeddedGateway();
    }

    @AfterAll
    static void stopDatabase() {
        if (db != null) {
            db.close();
            db = null;
        }
    }
}
