package io.meldb.log.replication;

import io.meldb.process.ChildProcess;
import io.meldb.process.JavaCommand;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A throwaway CA and one certificate it signed, made with the JDK's keytool for TLS tests: PEM files as an operator
 * would have them ({@code ca.pem}, {@code node.pem}, and {@code node.key} in PKCS#8). The certificate names
 * {@code 127.0.0.1} and {@code localhost} and may serve as TLS server and client.
 */
record TestCertificates(Path ca, Path cert, Path key) {
    private static final String PASS = "test-only";

    /** Makes a CA named {@code name} and a node certificate signed by it, in {@code dir}. */
    static TestCertificates create(final Path dir, final String name) throws Exception {
        return create(dir, name, "san=ip:127.0.0.1,dns:localhost");
    }

    /** As {@link #create(Path, String)}, the certificate's subject alternative names given as keytool's {@code san=...}. */
    static TestCertificates create(final Path dir, final String name, final String san) throws Exception {
        Files.createDirectories(dir);
        final Path caStore = dir.resolve("ca.p12");
        final Path nodeStore = dir.resolve("node.p12");
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name + "-ca",
            "-ext", "bc:c", "-validity", "2", "-keystore", caStore.toString());
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", caStore.toString(), "-file",
            dir.resolve("ca.pem").toString());
        keytool("-genkeypair", "-alias", "node", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name + "-node",
            "-validity", "2", "-keystore", nodeStore.toString());
        keytool("-certreq", "-alias", "node", "-keystore", nodeStore.toString(), "-file", dir.resolve("node.csr").toString());
        keytool("-gencert", "-rfc", "-alias", "ca", "-keystore", caStore.toString(), "-infile",
            dir.resolve("node.csr").toString(), "-outfile", dir.resolve("node.pem").toString(), "-validity", "2",
            "-ext", san, "-ext", "eku=serverAuth,clientAuth");
        final KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(nodeStore)) {
            ks.load(in, PASS.toCharArray());
        }
        final Key key = ks.getKey("node", PASS.toCharArray());
        final String pem = "-----BEGIN PRIVATE KEY-----\n"
            + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded())
            + "\n-----END PRIVATE KEY-----\n";
        Files.writeString(dir.resolve("node.key"), pem, StandardCharsets.US_ASCII);
        return new TestCertificates(dir.resolve("ca.pem"), dir.resolve("node.pem"), dir.resolve("node.key"));
    }

    private static void keytool(final String... args) {
        final List<String> cmd = new ArrayList<>();
        cmd.add(JavaCommand.jdkTool("keytool"));
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("-storetype", "PKCS12", "-storepass", PASS, "-noprompt"));
        if (List.of(args).contains("-genkeypair")) {
            cmd.addAll(List.of("-keypass", PASS));
        }
        final ChildProcess.Finished f = ChildProcess.run("keytool", cmd, Duration.ofSeconds(60));
        if (f.exitCode() != 0) {
            throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + f.output());
        }
    }
}
