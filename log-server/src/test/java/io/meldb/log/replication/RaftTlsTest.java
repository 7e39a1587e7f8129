package io.meldb.log.replication;

import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;
import io.meldb.log.server.LogServer;
import io.meldb.testkit.Await;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Raft port under mutual TLS (issue 22): three log servers at r = 3 in this process on loopback, two with
 * certificates of the cluster's CA and one impostor whose certificate another CA signed. The two form the majority
 * and replicate every append between them; the impostor is never sent an entry, never leads, and its store stays
 * empty; a Raft client with the impostor's certificate cannot append a block, while one with the cluster's can. And
 * a certificate of the right CA that does not name the peer's host (its {@code --peers} address) is refused too.
 */
@Tag("process") // it runs keytool, and takes 35-90 s with the servers' start-up
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RaftTlsTest {
    private static final int BLOCK = 256;

    @TempDir
    Path dir;

    private ReplicaGroup group;
    private LogServer[] servers;
    private int[] logPorts;

    @BeforeEach
    void ports() throws Exception {
        group = new ReplicaGroup(dir, BLOCK);
        servers = group.servers;
        logPorts = group.logPorts;
    }

    @AfterEach
    void stop() throws Exception {
        group.close();
    }

    private String peers() {
        return group.peers();
    }

    private LogServer start(final int i, final RaftTls tls) throws Exception {
        // not a test of timeouts: generous on a loaded machine
        return group.start(i, r -> r.commitTimeout(Duration.ofSeconds(20)).tls(tls));
    }

    private static byte[] block(final int n) {
        final byte[] b = new byte[BLOCK];
        Arrays.fill(b, (byte) n);
        return b;
    }

    /**
     * A Raft client of the group over TLS with {@code tls}'s certificate, retrying 10 times 200 ms apart: enough to
     * find the leader when the replicas let it in, a bounded wait when they do not.
     */
    private RaftClient raftClient(final RaftTls tls) {
        final RaftClient c = RaftClient.newBuilder().setProperties(new RaftProperties()).setParameters(tls.parameters())
            .setRaftGroup(RaftPeers.parse(peers(), 0).group()).setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(10,
                org.apache.ratis.util.TimeDuration.valueOf(200, TimeUnit.MILLISECONDS))).build();
        group.closeLater(c);
        return c;
    }

    @Test
    void aReplicaOrClientWithoutACertificateOfTheClusterCaGetsNoEntryAndAppendsNothing() throws Exception {
        // two keytool chains side by side: each is five JVM starts
        final CompletableFuture<TestCertificates> otherCa = CompletableFuture.supplyAsync(() -> {
            try {
                return TestCertificates.create(dir.resolve("other-ca"), "other");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        final TestCertificates cluster = TestCertificates.create(dir.resolve("cluster-ca"), "cluster");
        final TestCertificates other = otherCa.get(120, TimeUnit.SECONDS);
        final RaftTls good = RaftTls.load(cluster.cert(), cluster.key(), cluster.ca());
        // the impostor trusts the cluster's CA (it can check the real replicas) but holds no certificate of it
        final RaftTls impostor = RaftTls.load(other.cert(), other.key(), cluster.ca());
        servers[0] = start(0, good);
        servers[1] = start(1, good);
        servers[2] = start(2, impostor);

        final LogClient client = LogClient.connect(LogClientOptions.toAll("127.0.0.1:" + logPorts[0] + ",127.0.0.1:"
            + logPorts[1]).requestTimeout(Duration.ofSeconds(30)));
        group.closeLater(client);
        // CREATE is idempotent: sent again if the group was still settling
        Await.until(Duration.ofSeconds(90), "the log created", () -> {
            try {
                client.create(BLOCK, new byte[] {7}).get(40, TimeUnit.SECONDS);
                return true;
            } catch (Exception e) {
                return false;
            }
        });
        for (int n = 1; n <= 10; n++) {
            assertEquals(n, client.append(block(n)).get(30, TimeUnit.SECONDS), "append " + n);
        }
        for (int i = 0; i < 2; i++) {
            final ReplicatedLogStore r = servers[i].replicated();
            Await.until(Duration.ofSeconds(30), "replica n" + i + " applied the 10 blocks", () -> r.local().tail() == 11);
        }

        // a Raft client with the cluster's certificate appends a block: the port takes well-formed entries
        final RaftClientReply ok = raftClient(good).async().send(Message.valueOf(ByteString.copyFrom(
            ReplicatedEntry.append(block(11))))).get(30, TimeUnit.SECONDS);
        assertTrue(ok.isSuccess(), "the cluster's client appends: " + ok);
        // the same entry from a client holding the impostor's certificate never reaches the state machine
        final CompletableFuture<RaftClientReply> refused = raftClient(impostor).async().send(Message.valueOf(
            ByteString.copyFrom(ReplicatedEntry.append(block(99)))));
        final ExecutionException e = assertThrows(ExecutionException.class, () -> refused.get(30, TimeUnit.SECONDS));
        for (int i = 0; i < 2; i++) {
            final ReplicatedLogStore r = servers[i].replicated();
            Await.until(Duration.ofSeconds(30), "replica n" + i + " applied the cluster client's block",
                () -> r.local().tail() == 12);
        }
        assertEquals(12, client.tail().get(10, TimeUnit.SECONDS), "nothing of the impostor's client: " + e.getCause());

        // the impostor replica was never sent an entry and never led
        final ReplicatedLogStore imp = servers[2].replicated();
        assertFalse(imp.local().isCreated(), "the impostor replica got the CREATE");
        assertEquals(0, imp.local().tail(), "the impostor replica holds blocks");
        assertFalse(imp.replica().isLeaderReady(), "the impostor leads");
    }

    @Test
    void aCertificateOfTheClusterCaThatDoesNotNameThePeersHostIsRefused() throws Exception {
        // signed by the CA every replica trusts, but for another name than the --peers host (127.0.0.1)
        final TestCertificates misnamed = TestCertificates.create(dir.resolve("misnamed"), "cluster", "san=dns:example.org");
        final RaftTls tls = RaftTls.load(misnamed.cert(), misnamed.key(), misnamed.ca());
        for (int i = 0; i < 3; i++) {
            servers[i] = start(i, tls);
        }
        // eight seconds are four to eight election timeouts: with the name checked, no vote ever reaches a peer
        Thread.sleep(8000);
        for (int i = 0; i < 3; i++) {
            final RaftReplica r = servers[i].replicated().replica();
            assertFalse(r.isLeaderReady(), "n" + i + " leads");
            assertEquals(0, r.term(), "n" + i + " won a pre-vote: a peer accepted a certificate not naming its host");
        }
    }
}
