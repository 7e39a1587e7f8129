package io.meldb.log.replication;

import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;

/**
 * Mutual TLS on the Raft port (issue 22): every replica presents its certificate ({@code --raft-tls-cert}, with its
 * key {@code --raft-tls-key}) and accepts only peers whose certificate a CA of {@code --raft-tls-ca} signed, in both
 * directions (Ratis's gRPC TLS with client authentication required). A peer connecting to another also checks that
 * the certificate names the host it dialled (its {@code --peers} host, as a DNS or IP subject alternative name), as any
 * TLS client does.
 *
 * <p>The files are PEM, as cert-manager and most CAs issue them ({@code tls.crt}, {@code tls.key}, {@code ca.crt}); the
 * key must be PKCS#8 ({@code BEGIN PRIVATE KEY}). They are checked when the server starts, so a wrong file is a
 * one-line error naming the flag instead of a TLS failure on the first connection.
 */
public final class RaftTls {
    private final Path cert;
    private final Path key;
    private final Path ca;
    private final X509Certificate subject;

    private RaftTls(final Path cert, final Path key, final Path ca, final X509Certificate subject) {
        this.cert = cert;
        this.key = key;
        this.ca = ca;
        this.subject = subject;
    }

    /**
     * Reads and checks the three files: the certificates parse, the key is an unencrypted PKCS#8 RSA or EC key.
     *
     * @throws IllegalArgumentException naming the flag of the file that is missing or not what it should be
     */
    public static RaftTls load(final Path cert, final Path key, final Path ca) {
        final Collection<? extends Certificate> chain = certificates(cert, "--raft-tls-cert");
        certificates(ca, "--raft-tls-ca");
        privateKey(key);
        return new RaftTls(cert, key, ca, (X509Certificate) chain.iterator().next());
    }

    private static Collection<? extends Certificate> certificates(final Path file, final String flag) {
        try (InputStream in = Files.newInputStream(file)) {
            final Collection<? extends Certificate> certs = CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (certs.isEmpty()) {
                throw new IllegalArgumentException(flag + " " + file + " holds no certificate");
            }
            return certs;
        } catch (IOException e) {
            throw new IllegalArgumentException(flag + " " + file + " cannot be read: " + e.getMessage());
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(flag + " " + file + " is not a PEM certificate file: " + e.getMessage());
        }
    }

    private static PrivateKey privateKey(final Path file) {
        final String pem;
        try {
            pem = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IllegalArgumentException("--raft-tls-key " + file + " cannot be read: " + e.getMessage());
        }
        final String begin = "-----BEGIN PRIVATE KEY-----";
        final int from = pem.indexOf(begin);
        final int to = pem.indexOf("-----END PRIVATE KEY-----");
        if (from < 0 || to < from) {
            throw new IllegalArgumentException("--raft-tls-key " + file + " is not an unencrypted PKCS#8 PEM key (BEGIN"
                + " PRIVATE KEY); convert it with: openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8");
        }
        final byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--raft-tls-key " + file + ": the PEM body is not base64");
        }
        for (String algorithm : new String[] {"RSA", "EC", "Ed25519"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // try the next algorithm
            }
        }
        throw new IllegalArgumentException("--raft-tls-key " + file + " is not an RSA, EC or Ed25519 PKCS#8 key");
    }

    /** The subject of this replica's certificate (logged at start). */
    public String subject() {
        return subject.getSubjectX500Principal().getName();
    }

    /** Ratis parameters putting this TLS on the Raft server, the client it sends CREATE and TRIM through, and admin. */
    public Parameters parameters() {
        final GrpcTlsConfig conf = new GrpcTlsConfig(key.toFile(), cert.toFile(), ca.toFile(), true);
        final Parameters p = new Parameters();
        GrpcConfigKeys.TLS.setConf(p, conf);
        GrpcConfigKeys.Server.setTlsConf(p, conf);
        GrpcConfigKeys.Client.setTlsConf(p, conf);
        GrpcConfigKeys.Admin.setTlsConf(p, conf);
        return p;
    }

    @Override
    public String toString() {
        return "mutual TLS (cert " + cert + ", CA " + ca + ")";
    }
}
