package io.meldb.wire.auth;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The secret every member of one cluster shares ({@code --cluster-secret-file}): what proves, on the log port and
 * the transaction RPC port, that a peer belongs to the cluster. Computes the HMAC-SHA256 proofs of the handshake
 * ({@link ClusterAuthServerHandler}, {@link ClusterAuthClientHandler}); the secret itself never travels.
 */
public final class ClusterSecret {
    /** Bytes of each side's random nonce and of each proof. */
    public static final int NONCE_LENGTH = 32;
    public static final int PROOF_LENGTH = 32;
    /** The environment variable read when {@code --cluster-secret-file} is not given. */
    public static final String ENVIRONMENT = "MELDB_CLUSTER_SECRET_FILE";
    /** A secret file larger than this is not a secret but a mistake (a log file, a binary). */
    private static final long MAX_FILE_BYTES = 64 * 1024;

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] SERVER_LABEL = "meldb cluster server".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CLIENT_LABEL = "meldb cluster client".getBytes(StandardCharsets.US_ASCII);

    private final SecretKeySpec key;
    private final String source;

    private ClusterSecret(byte[] secret, String source) {
        if (secret.length == 0) {
            throw new IllegalArgumentException("the cluster secret in " + source + " is empty");
        }
        this.key = new SecretKeySpec(secret, "HmacSHA256");
        this.source = source;
    }

    /** A secret given directly (tests, and the generated secret of a local cluster). */
    public static ClusterSecret of(String secret) {
        return new ClusterSecret(secret.trim().getBytes(StandardCharsets.UTF_8), "the configuration");
    }

    /** A new random secret, 32 bytes as hex: what {@code --local-cluster} gives its children. */
    public static String generate() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /**
     * Reads a secret file: its content, trimmed, is the secret.
     *
     * @throws IllegalArgumentException if the file cannot be read, is empty or is implausibly large
     */
    public static ClusterSecret fromFile(Path file) {
        try {
            long size = Files.size(file);
            if (size > MAX_FILE_BYTES) {
                throw new IllegalArgumentException("the cluster secret file " + file + " has " + size
                        + " bytes; a secret is at most " + MAX_FILE_BYTES);
            }
            String text = Files.readString(file, StandardCharsets.UTF_8).trim();
            return new ClusterSecret(text.getBytes(StandardCharsets.UTF_8), "the file " + file);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the cluster secret file " + file + ": " + e, e);
        }
    }

    /**
     * The secret named by a {@code --cluster-secret-file} value, else by {@link #ENVIRONMENT}; null when neither is
     * set (the ports then take anyone, as before secrets existed).
     */
    public static ClusterSecret fromFlagOrEnvironment(String flagValue) {
        String path = flagValue != null && !flagValue.isBlank() ? flagValue : System.getenv(ENVIRONMENT);
        return path == null || path.isBlank() ? null : fromFile(Path.of(path.trim()));
    }

    /** Where the secret came from, for messages (never the secret). */
    public String source() {
        return source;
    }

    static byte[] nonce() {
        byte[] n = new byte[NONCE_LENGTH];
        RANDOM.nextBytes(n);
        return n;
    }

    /** What the server proves: it knows the secret, for this client nonce, this server nonce and this protocol. */
    byte[] serverProof(int protocolMagic, byte[] clientNonce, byte[] serverNonce) {
        return hmac(SERVER_LABEL, protocolMagic, clientNonce, serverNonce);
    }

    /** What the client proves; labels differ, so one side's proof never serves as the other's. */
    byte[] clientProof(int protocolMagic, byte[] clientNonce, byte[] serverNonce) {
        return hmac(CLIENT_LABEL, protocolMagic, serverNonce, clientNonce);
    }

    /** Constant-time comparison, so that timing does not reveal how much of a forged proof was right. */
    static boolean same(byte[] expected, byte[] actual) {
        return MessageDigest.isEqual(expected, actual);
    }

    private byte[] hmac(byte[] label, int magic, byte[] first, byte[] second) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            mac.update(label);
            mac.update(new byte[] {(byte) (magic >>> 24), (byte) (magic >>> 16), (byte) (magic >>> 8), (byte) magic});
            mac.update(first);
            mac.update(second);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    @Override
    public String toString() {
        return "cluster secret from " + source;
    }
}
