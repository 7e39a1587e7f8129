package io.meldb.txn;

import io.meldb.txn.api.TxnSession;
import io.meldb.txn.api.IsolationLevel;
import io.meldb.log.ErrorCode;
import io.meldb.log.LogErrorException;
import io.meldb.wire.auth.ClusterSecret;
import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.log.server.LogServer;
import io.meldb.log.server.LogServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The log server's TRIM rule against real checkpoints: a txn-server that talks to the log over the network (with
 * the cluster secret) trims behind its checkpoints as before, an outsider's TRIM above the newest checkpoint is
 * refused, and a trim exactly at the position the log server allows still leaves a log the txn-server recovers
 * from. This also checks that the log server reads the txn-server's checkpoint records as they are written.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CheckpointTrimTest {
    private static final ClusterSecret SECRET = ClusterSecret.of("checkpoint trim secret");
    private static final Pattern RESUMES_AT = Pattern.compile("resumes at position (\\d+)");

    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theLogKeepsTheNewestCheckpointWhoeverTrims() throws IOException {
        long hash;
        long csn;
        try (LogServer log = LogServer.start(LogServerConfig.at(dir.resolve("log")).metricsPort(-1).clusterSecret(SECRET))) {
            TxnServerConfig config = TxnServerConfig.log("127.0.0.1", log.port()).clusterSecret(SECRET).checkpointEvery(40);
            try (TxnServer server = TxnServer.start(config)) {
                for (int i = 0; i < 200; i++) {
                    try (TxnSession t = server.begin(IsolationLevel.SERIALIZABLE, false)) {
                        t.put(b("k" + (i % 31)), b("v" + i));
                        t.commit();
                    }
                }
                hash = server.status().stateHash();
                csn = server.status().csn();
            }
            assertTrue(log.store().trimPoint() > 1, "the txn-server's own trims behind its checkpoints were allowed");
            assertEquals(0, log.trimsRefused());
            try (LogClient outsider = LogClient.connect(LogClientOptions.to("127.0.0.1", log.port()).clusterSecret(SECRET))) {
                long tail = outsider.tail().join();
                CompletionException e = assertThrows(CompletionException.class, () -> outsider.trim(tail).join());
                LogErrorException refusal = assertInstanceOf(LogErrorException.class, e.getCause());
                assertEquals(ErrorCode.TRIM_REFUSED, refusal.code());
                Matcher m = RESUMES_AT.matcher(refusal.getMessage());
                assertTrue(m.find(), refusal.getMessage());
                long resume = Long.parseLong(m.group(1));
                assertTrue(resume > log.store().trimPoint() && resume < tail, "resume " + resume);
                assertEquals(ErrorCode.TRIM_REFUSED, ((LogErrorException) assertThrows(CompletionException.class,
                        () -> outsider.trim(resume + 1).join()).getCause()).code());
                assertEquals(resume, outsider.trim(resume).join(), "trimming to the checkpoint's resume position");
            }
        }
        try (LogServer log = LogServer.start(LogServerConfig.at(dir.resolve("log")).metricsPort(-1).clusterSecret(SECRET));
             TxnServer server = TxnServer.start(TxnServerConfig.log("127.0.0.1", log.port()).clusterSecret(SECRET))) {
            assertEquals(csn, server.status().csn(), "recovered from the checkpoint the trim kept");
            assertEquals(hash, server.status().stateHash());
            try (TxnSession r = server.begin(IsolationLevel.SNAPSHOT, true)) {
                assertArrayEquals(b("v199"), r.get(b("k" + (199 % 31))));
            }
        }
    }
}
