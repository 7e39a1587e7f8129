package io.meldb.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for tests that must name their servers' ports before starting them (a replica group's peer list,
 * a cluster's pods). A port the kernel hands out for port 0 lies in its ephemeral range, where it may meanwhile
 * become the local end of an outgoing connection of a server started first (a Raft peer's, a txn-server's to its
 * log), which then keeps the later server from binding it; so the port is taken below that range.
 */
public final class FreePorts {
    private FreePorts() {
    }

    /** A loopback port free now and below the kernel's ephemeral range (one the kernel picks, failing that). */
    public static int belowEphemeralRange() throws IOException {
        final int ephemeralLow = ephemeralRangeLow();
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 200 && ephemeralLow > 11_000; attempt++) {
            final int candidate = random.nextInt(10_000, ephemeralLow);
            try (ServerSocket s = new ServerSocket(candidate, 1, InetAddress.getLoopbackAddress())) {
                return s.getLocalPort();
            } catch (IOException taken) {
                // in use: try another
            }
        }
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /**
     * {@code n} different ports as {@link #belowEphemeralRange()} picks them: each is free when picked, but only
     * taking them all before any is bound keeps two picks from being the same port.
     */
    public static int[] distinctBelowEphemeralRange(final int n) throws IOException {
        final int[] ports = new int[n];
        final java.util.Set<Integer> taken = new java.util.HashSet<>();
        for (int i = 0; i < n; i++) {
            int port;
            do {
                port = belowEphemeralRange();
            } while (!taken.add(port));
            ports[i] = port;
        }
        return ports;
    }

    /** The first port of Linux's ephemeral range (32768 when it cannot be read). */
    private static int ephemeralRangeLow() {
        try {
            final String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
            return Integer.parseInt(range.split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }
}
