package io.meldb.log.replication;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Whether a replicated log server may start with its Raft port as configured (issue 22). The Raft port takes Raft's
 * own messages: whoever can reach it and speak Raft can claim a higher term, become leader and overwrite the log, so
 * the cluster secret, which guards the log and transaction ports, would be worth nothing if the Raft port were open.
 *
 * <p>The rule: a server given a cluster secret refuses to start when its Raft port listens on an address other than
 * loopback without mutual TLS ({@code --raft-tls-*}), unless the operator states that the network already confines
 * that port to the replicas ({@code --raft-trust-network true}, as the Helm chart does with its NetworkPolicy). A
 * refusal, not a warning: the secret says the operator wants the cluster closed, and a warning in a log nobody reads
 * would leave the whole log writable by anyone on the network. Without a cluster secret the server starts (every port
 * is open then, by the operator's choice).
 */
public final class RaftPortGuard {
    private RaftPortGuard() {
    }

    /**
     * Throws if a server with these settings must not start.
     *
     * @param clusterSecret  whether the server was given a cluster secret
     * @param raftHost       the address the Raft port listens on
     * @param tls            the Raft port's TLS, or null
     * @param trustNetwork   the operator's {@code --raft-trust-network}
     * @throws IllegalArgumentException saying why and what to set
     */
    public static void check(final boolean clusterSecret, final String raftHost, final RaftTls tls,
                             final boolean trustNetwork) {
        if (!clusterSecret || tls != null || trustNetwork || isLoopback(raftHost)) {
            return;
        }
        throw new IllegalArgumentException("the Raft port would listen on " + raftHost + " unguarded while the other"
            + " ports require the cluster secret: anyone reaching it could rewrite the log. Give it mutual TLS"
            + " (--raft-tls-cert, --raft-tls-key, --raft-tls-ca), bind it to loopback (--raft-host), or, if the network"
            + " lets only the replicas reach it (a private interface, a firewall, a NetworkPolicy), say so with"
            + " --raft-trust-network true");
    }

    /** Whether {@code host} is a loopback address (0.0.0.0, every interface, is not; an unknown name is not). */
    static boolean isLoopback(final String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
