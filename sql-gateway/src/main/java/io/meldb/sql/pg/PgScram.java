package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;

import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The server side of one SCRAM-SHA-256 exchange (RFC 5802 and RFC 7677, as PostgreSQL uses it): the client
 * proves it knows the password without sending it, and the server proves it knows the password's verifier.
 * Channel binding is not offered (the connection has no TLS), so a client that requires it is refused.
 */
final class PgScram {
    static final int ITERATIONS = 4096;

    /** What the server keeps of a password: the SCRAM verifier (salt, iterations, stored key, server key). */
    record Verifier(byte[] salt, int iterations, byte[] storedKey, byte[] serverKey) {
        static Verifier of(final String password, final SecureRandom random) {
            final byte[] salt = new byte[16];
            random.nextBytes(salt);
            final byte[] salted = saltedPassword(password, salt, ITERATIONS);
            return new Verifier(salt, ITERATIONS, sha256(hmac(salted, "Client Key")), hmac(salted, "Server Key"));
        }
    }

    private final Verifier verifier;
    private final String user;
    private final SecureRandom random;
    private String clientFirstBare;
    private String serverFirst;
    private String nonce;
    private String gs2Header;

    PgScram(final Verifier verifier, final String user, final SecureRandom random) {
        this.verifier = verifier;
        this.user = user;
        this.random = random;
    }

    /** Answers the client-first-message with the server-first-message. */
    byte[] first(final String clientFirst) {
        // gs2-header: "n,," (no channel binding) or "y,," (client could bind but thinks we cannot)
        if (!(clientFirst.startsWith("n,") || clientFirst.startsWith("y,"))) {
            throw new SqlStateException("28000", "SCRAM channel binding is not supported by this server");
        }
        final int second = clientFirst.indexOf(',', 2);
        if (second < 0) {
            throw malformed();
        }
        gs2Header = clientFirst.substring(0, second + 1);
        clientFirstBare = clientFirst.substring(second + 1);
        String clientNonce = null;
        for (String attribute : clientFirstBare.split(",")) {
            if (attribute.startsWith("r=")) {
                clientNonce = attribute.substring(2);
            }
        }
        if (clientNonce == null || clientNonce.isEmpty()) {
            throw malformed();
        }
        final byte[] serverNonce = new byte[18];
        random.nextBytes(serverNonce);
        nonce = clientNonce + Base64.getEncoder().encodeToString(serverNonce);
        serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(verifier.salt()) + ",i="
                + verifier.iterations();
        return serverFirst.getBytes(StandardCharsets.UTF_8);
    }

    /** Checks the client's proof; answers the server-final-message, or fails with 28P01. */
    byte[] last(final String clientFinal) {
        final int proofAt = clientFinal.lastIndexOf(",p=");
        if (serverFirst == null || proofAt < 0) {
            throw malformed();
        }
        final String withoutProof = clientFinal.substring(0, proofAt);
        String channel = null;
        String finalNonce = null;
        for (String attribute : withoutProof.split(",")) {
            if (attribute.startsWith("c=")) {
                channel = attribute.substring(2);
            } else if (attribute.startsWith("r=")) {
                finalNonce = attribute.substring(2);
            }
        }
        final byte[] proof;
        try {
            proof = Base64.getDecoder().decode(clientFinal.substring(proofAt + 3));
        } catch (IllegalArgumentException e) {
            throw malformed();
        }
        final String expectedChannel = Base64.getEncoder().encodeToString(gs2Header.getBytes(StandardCharsets.UTF_8));
        if (!expectedChannel.equals(channel) || !nonce.equals(finalNonce) || proof.length != 32) {
            throw failed();
        }
        final String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
        final byte[] signature = hmac(verifier.storedKey(), authMessage);
        final byte[] clientKey = new byte[32];
        for (int i = 0; i < 32; i++) {
            clientKey[i] = (byte) (proof[i] ^ signature[i]);
        }
        if (!MessageDigest.isEqual(sha256(clientKey), verifier.storedKey())) {
            throw failed();
        }
        final byte[] serverSignature = hmac(verifier.serverKey(), authMessage);
        return ("v=" + Base64.getEncoder().encodeToString(serverSignature)).getBytes(StandardCharsets.UTF_8);
    }

    private SqlStateException failed() {
        return new SqlStateException("28P01", "password authentication failed for user \"" + user + "\"");
    }

    private static SqlStateException malformed() {
        return new SqlStateException("08P01", "malformed SCRAM message");
    }

    static byte[] saltedPassword(final String password, final byte[] salt, final int iterations) {
        try {
            final SecretKeyFactory f = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256");
            return f.generateSecret(new PBEKeySpec(password.toCharArray(), salt, iterations, 256)).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JVM lacks PBKDF2WithHmacSHA256", e);
        }
    }

    static byte[] hmac(final byte[] key, final String message) {
        try {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(message.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JVM lacks HmacSHA256", e);
        }
    }

    static byte[] sha256(final byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JVM lacks SHA-256", e);
        }
    }
}
