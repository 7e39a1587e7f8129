package io.meldb.log.client;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The log servers one connection of a client may use, and which it tries next (issue 22, a replicated log): the
 * leader a NOT_LEADER or OUTCOME_UNKNOWN answer named, else the next address in turn after a failure. With one
 * address this is the r = 1 client, always going back to the same server. Confined to the connection's event loop;
 * each connection (the request connection, every subscription) has its own, so a subscription fails over to another
 * replica on its own.
 */
final class ReplicaAddresses {
    private static final Pattern LEADER_AT = Pattern.compile("leader at ([^\\s;,()]+):(\\d+)");

    private final List<InetSocketAddress> addresses;
    private int current;

    ReplicaAddresses(List<String> hostPorts) {
        if (hostPorts.isEmpty()) {
            throw new IllegalArgumentException("no log server address");
        }
        addresses = new ArrayList<>(hostPorts.size());
        for (String hp : hostPorts) {
            addresses.add(parse(hp));
        }
    }

    /**
     * {@code host:port}, unresolved (resolved at each connect, so a replica whose DNS name moves is found).
     *
     * @throws IllegalArgumentException naming the malformed address
     */
    static InetSocketAddress parse(String hostPort) {
        String s = hostPort.trim();
        int colon = s.lastIndexOf(':');
        if (colon <= 0 || colon == s.length() - 1) {
            throw new IllegalArgumentException("log server address '" + hostPort + "' is not host:port");
        }
        try {
            int port = Integer.parseInt(s.substring(colon + 1));
            if (port < 1 || port > 65535) {
                throw new NumberFormatException();
            }
            return InetSocketAddress.createUnresolved(s.substring(0, colon), port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("log server address '" + hostPort + "' has no valid port");
        }
    }

    /** More than one server: the log is replicated and a failure moves on to another. */
    boolean several() {
        return addresses.size() > 1;
    }

    int size() {
        return addresses.size();
    }

    /** The server to connect to now. */
    InetSocketAddress current() {
        return addresses.get(current);
    }

    String currentName() {
        InetSocketAddress a = current();
        return a.getHostString() + ":" + a.getPort();
    }

    /** The current server failed or refused: the next one in turn. */
    void moveOn() {
        current = (current + 1) % addresses.size();
    }

    /**
     * What a replica's TAIL answer ({@code leader}: the leader's address it names, or null) means for a connection to
     * it: null to stay; otherwise the connection should close, this cursor already points where to go next, and the
     * reason is returned. {@code needLeader}: a connection for appends leaves a replica that knows no leader; a
     * subscription stays there (any replica serves reads) unless a leader is named.
     */
    String redirect(String leader, boolean needLeader) {
        String here = currentName();
        if (leader == null) {
            if (!needLeader) {
                return null;
            }
            moveOn();
            return "log server " + here + " knows no leader";
        }
        if (leader.equals(here)) {
            return null;
        }
        follow("leader at " + leader);
        return currentName().equals(here) ? null : "log server " + here + " names " + leader + " as the leader";
    }

    /**
     * A server's answer named the leader ({@code ... leader at host:port}): go there next; an answer naming none
     * moves on in turn. A leader outside the configured list is added (the operator's list may use other names).
     */
    void follow(String errorMessage) {
        Matcher m = errorMessage == null ? null : LEADER_AT.matcher(errorMessage);
        if (m == null || !m.find()) {
            moveOn();
            return;
        }
        String host = m.group(1);
        int port = Integer.parseInt(m.group(2));
        for (int i = 0; i < addresses.size(); i++) {
            InetSocketAddress a = addresses.get(i);
            if (a.getPort() == port && a.getHostString().equals(host)) {
                current = i;
                return;
            }
        }
        // the same server under another name (an IP for a DNS name, say) would be added too: harmless, it is tried
        // in turn like the others
        addresses.add(InetSocketAddress.createUnresolved(host, port));
        current = addresses.size() - 1;
    }
}
