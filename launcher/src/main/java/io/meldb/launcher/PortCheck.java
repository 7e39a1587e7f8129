package io.meldb.launcher;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks, before the {@code meldb} command creates or opens anything, that the ports it is to serve on are free,
 * so that a taken port is a one-line error at once rather than a bind failure after the database has started (and
 * created its data directory). A server that takes the port between the check and the bind still fails at the bind.
 */
final class PortCheck {
    /** A port the command will listen on, and the flag that set it (named in the error). */
    record Port(String flag, int number) {
    }

    private PortCheck() {
    }

    /**
     * @throws IllegalArgumentException naming the port and its flag when one is taken, or two flags name the same
     *                                  port; ports 0 (any free port) and -1 (off) are not checked
     */
    static void requireFree(final String host, final List<Port> ports) {
        final Map<Integer, String> seen = new HashMap<>();
        for (Port p : ports) {
            if (p.number() <= 0) {
                continue;
            }
            final String other = seen.putIfAbsent(p.number(), p.flag());
            if (other != null) {
                throw new IllegalArgumentException(p.flag() + " " + p.number() + " is the same port as " + other);
            }
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(true); // as the servers bind: a port in TIME_WAIT is free for them
                socket.bind(new InetSocketAddress(host, p.number()));
            } catch (IOException | SecurityException e) {
                throw new IllegalArgumentException("port " + p.number() + " (" + p.flag() + ") on " + host
                        + " is not available: " + e.getMessage() + "; stop what uses it or choose another ("
                        + p.flag() + " 0 picks a free one)");
            }
        }
    }
}
