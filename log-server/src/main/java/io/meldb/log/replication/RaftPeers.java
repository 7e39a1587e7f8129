package io.meldb.log.replication;

import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The replicas of a replicated log, parsed from {@code --peers id=host:raftPort[:logPort],...} (issue 22): each
 * peer's Raft address and the address its clients use for the log protocol, so that a follower can name the leader
 * in a NOT_LEADER answer. Without {@code :logPort} a peer's log port is taken to be this server's own {@code --port}
 * (every replica listening on the same port, as in a Kubernetes StatefulSet).
 *
 * <p>The Raft group id is derived from the sorted peer ids, not drawn at random: every replica computes the same one
 * without a coordinator, and a restart finds its group again.
 */
public final class RaftPeers {
    /** One replica. */
    public record Peer(String id, String host, int raftPort, String clientHost, int clientPort) {
        public String raftAddress() {
            return host + ":" + raftPort;
        }

        public String clientAddress() {
            return clientHost + ":" + clientPort;
        }
    }

    private final List<Peer> peers;

    private RaftPeers(final List<Peer> peers) {
        this.peers = List.copyOf(peers);
    }

    /**
     * Parses the peer list. {@code defaultLogPort}: the log port of a peer given without one.
     *
     * @throws IllegalArgumentException naming the malformed entry, a duplicate id or address
     */
    public static RaftPeers parse(final String spec, final int defaultLogPort) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("--peers is empty; expected id=host:raftPort[:logPort],...");
        }
        final List<Peer> list = new ArrayList<>();
        final Set<String> ids = new HashSet<>();
        final Set<String> addresses = new HashSet<>();
        for (final String raw : spec.split(",")) {
            final String entry = raw.trim();
            final int eq = entry.indexOf('=');
            final String[] hostPorts = eq < 0 ? new String[0] : entry.substring(eq + 1).split(":");
            if (eq <= 0 || hostPorts.length < 2 || hostPorts.length > 3 || hostPorts[0].isEmpty()) {
                throw new IllegalArgumentException("--peers entry '" + entry + "' is not id=host:raftPort[:logPort]");
            }
            final String id = entry.substring(0, eq);
            if (!id.matches("[A-Za-z0-9_.-]+")) {
                throw new IllegalArgumentException("--peers id '" + id + "' may hold only letters, digits, '_', '.', '-'");
            }
            final int raftPort = port(hostPorts[1], entry);
            final int logPort = hostPorts.length == 3 ? port(hostPorts[2], entry) : defaultLogPort;
            final Peer p = new Peer(id, hostPorts[0], raftPort, hostPorts[0], logPort);
            if (!ids.add(id)) {
                throw new IllegalArgumentException("--peers names '" + id + "' twice");
            }
            if (!addresses.add(p.raftAddress())) {
                throw new IllegalArgumentException("--peers gives the Raft address " + p.raftAddress() + " twice");
            }
            list.add(p);
        }
        return new RaftPeers(list);
    }

    private static int port(final String s, final String entry) {
        try {
            final int p = Integer.parseInt(s);
            if (p < 1 || p > 65535) {
                throw new NumberFormatException();
            }
            return p;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--peers entry '" + entry + "': '" + s + "' is not a port (1-65535)");
        }
    }

    public List<Peer> peers() {
        return peers;
    }

    public int size() {
        return peers.size();
    }

    /** The peer named {@code id}, or null. */
    public Peer peer(final String id) {
        for (final Peer p : peers) {
            if (p.id().equals(id)) {
                return p;
            }
        }
        return null;
    }

    /** The Raft group of these peers; its id depends only on the peer ids. */
    public RaftGroup group() {
        final List<String> ids = new ArrayList<>();
        final List<RaftPeer> raftPeers = new ArrayList<>();
        for (final Peer p : peers) {
            ids.add(p.id());
            // the log address stays ours (Ratis would send its own client RPCs to a peer's client address)
            raftPeers.add(RaftPeer.newBuilder().setId(RaftPeerId.valueOf(p.id())).setAddress(p.raftAddress()).build());
        }
        ids.sort(null);
        final UUID groupId = UUID.nameUUIDFromBytes(("meldb-log:" + String.join(",", ids)).getBytes(StandardCharsets.UTF_8));
        return RaftGroup.valueOf(RaftGroupId.valueOf(groupId), raftPeers);
    }

    @Override
    public String toString() {
        final StringBuilder b = new StringBuilder();
        for (final Peer p : peers) {
            b.append(b.isEmpty() ? "" : ",").append(p.id()).append('=').append(p.raftAddress()).append(':').append(p.clientPort());
        }
        return b.toString();
    }
}
