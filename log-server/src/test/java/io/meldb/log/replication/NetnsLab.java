package io.meldb.log.replication;

import io.meldb.process.ChildProcess;
import org.junit.jupiter.api.Assumptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A private network of Linux network namespaces for partition tests (issue 22): one namespace per node, each with
 * one veth link to a bridge in the root namespace, which holds the last address of the subnet so that a test's
 * clients reach every node. {@link #cut} takes a node's bridge end of its link down (its traffic to and from every
 * other node and the root namespace is dropped silently, as with a pulled cable), {@link #heal} brings it back.
 *
 * <p>Names carry this JVM's pid ({@code mdbp<pid>-n1}, bridge {@code mdbp<pid>br}), so parallel runs do not meet, and
 * {@link #create} first removes what a killed earlier run left behind (names whose pid is no longer running). The
 * subnet is 10.231.X.0/24 with X not used by any address on this machine. Needs root and {@code ip}: without them a
 * test is skipped, unless {@code MELDB_REQUIRE_NETNS=1} (set by CI), when it fails instead.
 */
final class NetnsLab implements AutoCloseable {
    private static final String PREFIX = "mdbp";
    private static final Pattern OWNED = Pattern.compile("^" + PREFIX + "(\\d+)(-n\\d+|br|v\\d+)$");
    private static final Duration IP_TIMEOUT = Duration.ofSeconds(20);

    private final String tag;
    private final int octet;
    private final int nodes;
    private final List<String> namespaces = new ArrayList<>();
    private boolean bridge;

    private NetnsLab(final String tag, final int octet, final int nodes) {
        this.tag = tag;
        this.octet = octet;
        this.nodes = nodes;
    }

    /** Skips the calling test (or fails it, under MELDB_REQUIRE_NETNS=1) when namespaces cannot be made here. */
    static void assumeAvailable() {
        final String why = unavailableReason();
        if (why == null) {
            return;
        }
        if ("1".equals(System.getenv("MELDB_REQUIRE_NETNS"))) {
            throw new AssertionError("MELDB_REQUIRE_NETNS=1 but network namespaces are not available: " + why);
        }
        Assumptions.abort("skipped: network namespaces are not available (" + why + "); set MELDB_REQUIRE_NETNS=1 to"
            + " make this a failure");
    }

    private static String unavailableReason() {
        final String uid = effectiveUid();
        if (!"0".equals(uid)) {
            return "not running as root (effective uid " + uid + ")";
        }
        if (Files.isExecutable(Path.of("/usr/sbin/ip")) || Files.isExecutable(Path.of("/sbin/ip"))
            || Files.isExecutable(Path.of("/usr/bin/ip")) || Files.isExecutable(Path.of("/bin/ip"))) {
            final ChildProcess.Finished f = ChildProcess.run("ip-netns", List.of("ip", "netns", "list"), IP_TIMEOUT);
            return f.exitCode() == 0 ? null : "'ip netns list' failed: " + f.output().trim();
        }
        return "the 'ip' command (iproute2) is not installed";
    }

    /** This process's effective uid, from /proc/self/status ("?" where there is none). */
    private static String effectiveUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.substring(4).trim().split("\\s+")[1];
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            // not Linux
        }
        return "?";
    }

    /** Creates {@code nodes} namespaces joined by a bridge, after removing any a dead earlier run left. */
    static NetnsLab create(final int nodes) {
        removeStale();
        final String tag = PREFIX + ProcessHandle.current().pid();
        final NetnsLab lab = new NetnsLab(tag, freeOctet(), nodes);
        try {
            lab.build();
            return lab;
        } catch (RuntimeException | Error e) {
            lab.close();
            throw e;
        }
    }

    private void build() {
        final String br = tag + "br";
        ip("link", "add", br, "type", "bridge");
        bridge = true;
        ip("addr", "add", "10.231." + octet + ".254/24", "dev", br);
        ip("link", "set", br, "up");
        for (int i = 1; i <= nodes; i++) {
            final String ns = namespace(i);
            ip("netns", "add", ns);
            namespaces.add(ns);
            ip("link", "add", veth(i), "type", "veth", "peer", "name", "eth0", "netns", ns);
            ip("link", "set", veth(i), "master", br);
            ip("link", "set", veth(i), "up");
            ip("-n", ns, "link", "set", "lo", "up");
            ip("-n", ns, "addr", "add", address(i) + "/24", "dev", "eth0");
            ip("-n", ns, "link", "set", "eth0", "up");
        }
    }

    /** The namespace of node {@code i} (1-based). */
    String namespace(final int i) {
        return tag + "-n" + i;
    }

    private String veth(final int i) {
        return tag + "v" + i;
    }

    /** Node {@code i}'s address, reachable from the root namespace and the other nodes while not cut. */
    String address(final int i) {
        return "10.231." + octet + "." + i;
    }

    /** The command prefix that runs a command inside node {@code i}'s namespace. */
    String[] inside(final int i) {
        return new String[] {"ip", "netns", "exec", namespace(i)};
    }

    /** Node {@code i} hears nothing and is heard by no one (the other nodes, the root namespace). */
    void cut(final int i) {
        ip("link", "set", veth(i), "down");
    }

    void heal(final int i) {
        ip("link", "set", veth(i), "up");
    }

    private static void ip(final String... args) {
        final List<String> cmd = new ArrayList<>(List.of("ip"));
        cmd.addAll(List.of(args));
        final ChildProcess.Finished f = ChildProcess.run("ip", cmd, IP_TIMEOUT);
        if (f.exitCode() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed (" + f.exitCode() + "): " + f.output().trim());
        }
    }

    private static String ipOutput(final String... args) {
        final List<String> cmd = new ArrayList<>(List.of("ip"));
        cmd.addAll(List.of(args));
        return ChildProcess.run("ip", cmd, IP_TIMEOUT).output();
    }

    /** A third octet for 10.231.X.0/24 that no address of this machine uses. */
    private static int freeOctet() {
        final String used = ipOutput("-o", "addr", "show");
        final int start = (int) (ProcessHandle.current().pid() % 250);
        for (int k = 0; k < 250; k++) {
            final int o = 1 + (start + k) % 250;
            if (!used.contains("10.231." + o + ".")) {
                return o;
            }
        }
        throw new IllegalStateException("no free 10.231.X.0/24 subnet");
    }

    /** Namespaces and bridges of earlier runs whose JVM is gone (a killed test never reached its cleanup). */
    private static void removeStale() {
        for (String line : ipOutput("netns", "list").split("\n")) {
            final String name = line.trim().split("\\s+")[0];
            if (stale(name)) {
                ChildProcess.run("ip", List.of("ip", "netns", "del", name), IP_TIMEOUT);
            }
        }
        for (String line : ipOutput("-o", "link", "show").split("\n")) {
            final String[] parts = line.split(":\\s+");
            if (parts.length > 1) {
                final String name = parts[1].split("@")[0].trim();
                if (stale(name)) {
                    ChildProcess.run("ip", List.of("ip", "link", "del", name), IP_TIMEOUT);
                }
            }
        }
    }

    private static boolean stale(final String name) {
        final Matcher m = OWNED.matcher(name);
        if (!m.matches()) {
            return false;
        }
        final long pid = Long.parseLong(m.group(1));
        return pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true);
    }

    /**
     * Deletes the links, the namespaces and the bridge; safe to call twice. The veth pairs are deleted by name: a
     * namespace outlives {@code ip netns del} while anything still refers to it (here it kept its links for minutes
     * after its last process ended), and its links with it.
     */
    @Override
    public void close() {
        for (int i = 1; i <= namespaces.size(); i++) {
            ChildProcess.run("ip", List.of("ip", "link", "del", veth(i)), IP_TIMEOUT);
        }
        for (String ns : namespaces) {
            ChildProcess.run("ip", List.of("ip", "netns", "del", ns), IP_TIMEOUT);
        }
        namespaces.clear();
        if (bridge) {
            ChildProcess.run("ip", List.of("ip", "link", "del", tag + "br"), IP_TIMEOUT);
            bridge = false;
        }
    }
}
