package io.meldb.deploy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.meldb.process.ChildProcess;
import io.meldb.process.JavaCommand;
import io.meldb.testkit.FreePorts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One pod of the rendered chart run as a local process: the image's entrypoint (java with bin/jvm-flags and the
 * role's main class) with exactly the container's args and environment, except what only a cluster provides: a
 * Service's pod name resolves to the loopback port this test gave that pod's container port, 0.0.0.0 listens on
 * loopback, and each volume is a directory (a Secret volume holds the Secret's items, as the kubelet writes them).
 */
final class PodProcess implements AutoCloseable {
    /** The images' entrypoints (deploy/pom.xml's Jib configuration names the same classes). */
    static final Map<String, String> MAIN_CLASSES = Map.of(
        "log-server", "io.meldb.log.server.LogServerMain",
        "txn-server", "io.meldb.txn.TxnServerMain",
        "gateway", "io.meldb.launcher.GatewayMain");

    final String podName;
    final String dnsName;
    final Container container;
    final Map<Integer, Integer> ports = new LinkedHashMap<>();
    private final PodTemplateSpec template;
    private final Path dir;
    private final Path logFile;
    private ChildProcess process;
    /** Lines of output.log written before the current start: a restart's output begins after them. */
    private int firstLine;

    PodProcess(final String podName, final String serviceName, final PodTemplateSpec template, final Path dir)
        throws IOException {
        this.podName = podName;
        this.dnsName = podName + "." + serviceName + "." + RenderedChart.NAMESPACE + ".svc.cluster.local";
        this.template = template;
        this.container = RenderedChart.container(template);
        this.dir = Files.createDirectories(dir.resolve(podName));
        this.logFile = this.dir.resolve("output.log");
        for (ContainerPort p : container.getPorts()) {
            ports.put(p.getContainerPort(), FreePorts.belowEphemeralRange());
        }
    }

    /** The loopback port standing in for this pod's container port {@code containerPort}. */
    int port(final int containerPort) {
        final Integer p = ports.get(containerPort);
        if (p == null) {
            throw new AssertionError(podName + " exposes no container port " + containerPort);
        }
        return p;
    }

    /** Starts the container's command; {@code resolve} maps "pod-dns-name:port" to the standing-in "host:port". */
    void start(final RenderedChart chart, final Function<String, String> resolve, final boolean dropUnknownAuthFlag)
        throws IOException {
        final Map<String, String> mounts = mountVolumes(chart);
        // as the image's entrypoint: bin/jvm-flags (meldb.jvm.flags.file, set by deploy/pom.xml), no -Xmx of its own
        final JavaCommand java = JavaCommand.main(MAIN_CLASSES.get(roleOf(container.getImage()))).heap(null)
            .jvmArgs("-XX:+ExitOnOutOfMemoryError");
        final List<String> args = container.getArgs();
        for (int i = 0; i < args.size(); i++) {
            final String flag = i > 0 ? args.get(i - 1) : "";
            if (dropUnknownAuthFlag && (args.get(i).equals("--cluster-secret-file")
                || flag.equals("--cluster-secret-file"))) {
                continue;
            }
            java.args(rewrite(flag, args.get(i), mounts, resolve));
        }
        final Map<String, String> env = environment(chart, mounts, resolve);
        firstLine = Files.exists(logFile) ? Files.readAllLines(logFile, StandardCharsets.UTF_8).size() : 0;
        process = ChildProcess.builder(podName, java.build()).directory(dir).appendOutput(logFile)
            .environment(e -> {
                e.keySet().removeIf(k -> k.startsWith("MELDB_") || k.startsWith("JDK_JAVA_OPTIONS")
                    || k.equals("JAVA_TOOL_OPTIONS"));
                e.putAll(env);
            }).start();
    }

    private String rewrite(final String flag, final String value, final Map<String, String> mounts,
                           final Function<String, String> resolve) {
        if (flag.equals("--host") && value.equals("0.0.0.0")) {
            return "127.0.0.1";
        }
        if (flag.endsWith("-port") || flag.equals("--port")) {
            return String.valueOf(port(Integer.parseInt(value)));
        }
        for (Map.Entry<String, String> m : mounts.entrySet()) {
            if (value.equals(m.getKey()) || value.startsWith(m.getKey() + "/")) {
                return m.getValue() + value.substring(m.getKey().length());
            }
        }
        if (value.contains(".svc.cluster.local:")) {
            final List<String> out = new ArrayList<>();
            for (String address : value.split(",")) {
                out.add(resolve.apply(address));
            }
            return String.join(",", out);
        }
        return value;
    }

    private Map<String, String> environment(final RenderedChart chart, final Map<String, String> mounts,
                                            final Function<String, String> resolve) {
        final Map<String, String> env = new LinkedHashMap<>();
        for (EnvFromSource from : container.getEnvFrom() == null ? List.<EnvFromSource>of() : container.getEnvFrom()) {
            env.putAll(chart.get(ConfigMap.class, from.getConfigMapRef().getName()).getData());
        }
        for (EnvVar e : container.getEnv()) {
            final String value;
            if (e.getValue() != null) {
                value = e.getValue();
            } else if (e.getValueFrom().getConfigMapKeyRef() != null) {
                final var ref = e.getValueFrom().getConfigMapKeyRef();
                value = chart.get(ConfigMap.class, ref.getName()).getData().get(ref.getKey());
            } else if (e.getValueFrom().getSecretKeyRef() != null) {
                final var ref = e.getValueFrom().getSecretKeyRef();
                value = RenderedChart.secretValue(chart.get(Secret.class, ref.getName()), ref.getKey());
            } else if ("metadata.name".equals(e.getValueFrom().getFieldRef().getFieldPath())) {
                value = podName;
            } else {
                throw new AssertionError("env " + e.getName() + ": the test does not resolve " + e.getValueFrom());
            }
            if (value == null) {
                throw new AssertionError("env " + e.getName() + " refers to nothing the chart renders");
            }
            env.put(e.getName(), rewrite("", value, mounts, resolve));
        }
        return env;
    }

    /** Each mount as a directory under the pod's; Secret volumes filled with their items. mountPath -> dir. */
    private Map<String, String> mountVolumes(final RenderedChart chart) throws IOException {
        final Map<String, String> mounts = new LinkedHashMap<>();
        for (VolumeMount m : container.getVolumeMounts()) {
            final Path local = Files.createDirectories(dir.resolve("volumes").resolve(m.getName()));
            final Volume v = template.getSpec().getVolumes().stream().filter(x -> x.getName().equals(m.getName()))
                .findFirst().orElse(null);
            if (v != null && v.getSecret() != null) {
                final Secret s = chart.get(Secret.class, v.getSecret().getSecretName());
                for (KeyToPath item : v.getSecret().getItems()) {
                    Files.writeString(local.resolve(item.getPath()), RenderedChart.secretValue(s, item.getKey()),
                        StandardCharsets.UTF_8);
                }
            }
            mounts.put(m.getMountPath(), local.toString());
        }
        return mounts;
    }

    /** Whether every server's --help names {@code flag}. */
    static boolean allServersAccept(final String flag) {
        for (String main : MAIN_CLASSES.values()) {
            final String help = ChildProcess.run(main, JavaCommand.main(main).heap(null).args("--help").build(),
                Duration.ofSeconds(60)).output();
            if (!help.contains(flag)) {
                return false;
            }
        }
        return true;
    }

    private static String roleOf(final String image) {
        final String name = image.substring(image.lastIndexOf('/') + 1, image.lastIndexOf(':'));
        if (!MAIN_CLASSES.containsKey(name)) {
            throw new AssertionError("no image " + name);
        }
        return name;
    }

    /** Waits for a line of the process's output containing {@code text}; fails if the process exits first. */
    String awaitOutput(final String text, final long timeoutMillis) throws Exception {
        final long deadline = System.currentTimeMillis() + timeoutMillis;
        while (System.currentTimeMillis() < deadline) {
            final List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            for (String line : lines.subList(Math.min(firstLine, lines.size()), lines.size())) {
                if (line.contains(text)) {
                    return line;
                }
            }
            if (!process.alive()) {
                throw new AssertionError(podName + " exited with " + process.process().exitValue() + ":\n"
                    + output());
            }
            Thread.sleep(100);
        }
        throw new AssertionError(podName + " did not print '" + text + "' within " + timeoutMillis + " ms:\n"
            + output());
    }

    String output() throws IOException {
        final List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    /** The kubelet's SIGKILL: the pod is lost. */
    void kill() {
        process.kill();
    }

    /** SIGTERM, as the kubelet stops a pod; the exit code once the process has stopped (-1: did not stop). */
    int terminate(final long timeoutSeconds) {
        if (process == null || !process.alive()) {
            return process == null ? 0 : process.process().exitValue();
        }
        process.process().destroy();
        if (!process.waitFor(Duration.ofSeconds(timeoutSeconds))) {
            process.kill();
            return -1;
        }
        return process.process().exitValue();
    }

    @Override
    public void close() {
        if (process != null && process.alive()) {
            process.kill();
        }
    }


}
