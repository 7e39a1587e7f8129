package io.meldb.wire.client;

import io.meldb.wire.auth.ClusterSecret;

import java.time.Duration;

/**
 * Who a framed-RPC client talks to and how its connections are set up: the server's address, the protocol's magic
 * and version (for the cluster handshake), the cluster secret (null: no handshake), and the connect and keepalive
 * timings. {@code description} names the server in errors and logs ("the log server", "the transaction server").
 */
public record RpcPeer(String description, String host, int port, int magic, byte version, ClusterSecret clusterSecret,
                      Duration connectTimeout, Duration keepaliveInterval) {

    /** {@code host:port}. */
    public String target() {
        return host + ":" + port;
    }

    /** {@code description at host:port}, as errors name the server. */
    public String named() {
        return description + " at " + target();
    }
}
