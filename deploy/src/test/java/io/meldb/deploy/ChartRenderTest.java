package io.meldb.deploy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import static io.meldb.deploy.RenderedChart.RELEASE;
import static io.meldb.deploy.RenderedChart.arg;
import static io.meldb.deploy.RenderedChart.container;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code helm template} of the chart for the default, development and HA values, parsed strictly, and the wiring
 * that matters checked on the objects: one meld configuration, probes on served ports, data on volumes, the
 * NetworkPolicies' selectors, the secrets mounted where the flags say.
 */
class ChartRenderTest {
    private static final List<String> CLUSTER_KEYS = List.of("MELDB_TXN_BLOCK_SIZE", "MELDB_TXN_PREMELD_THREADS",
        "MELDB_TXN_PREMELD_DISTANCE", "MELDB_TXN_GROUP_MELD", "MELDB_TXN_MAX_SNAPSHOT_AGE");
    private static final List<String> CLUSTER_FLAGS = List.of("--block-size", "--premeld-threads",
        "--premeld-distance", "--group-meld", "--max-snapshot-age");

    private static RenderedChart render(final String values) {
        return values.equals("values.yaml") ? RenderedChart.render() : RenderedChart.render(values);
    }

    @ParameterizedTest
    @ValueSource(strings = {"values.yaml", "values-dev.yaml", "values-ha.yaml"})
    void everyTxnServerPodGetsTheMeldConfigurationFromTheOneConfigMap(final String values) {
        final RenderedChart chart = render(values);
        final ConfigMap cluster = chart.clusterConfig();
        assertEquals(new TreeSet<>(CLUSTER_KEYS), new TreeSet<>(cluster.getData().keySet()));
        // a StatefulSet has one pod template: every ordinal runs it; the meld configuration must come only from the
        // ConfigMap, never from per-pod args or env that could differ
        assertEquals(1, chart.all(io.fabric8.kubernetes.api.model.apps.StatefulSet.class).stream()
            .filter(s -> s.getMetadata().getName().endsWith("-txn")).count());
        final Container txn = container(chart.txnServers().getSpec().getTemplate());
        assertEquals(cluster.getMetadata().getName(), txn.getEnvFrom().get(0).getConfigMapRef().getName());
        for (String flag : CLUSTER_FLAGS) {
            assertFalse(txn.getArgs().contains(flag), flag + " given per pod: " + txn.getArgs());
            assertFalse(txn.getArgs().stream().anyMatch(a -> a.startsWith(flag + "=")), flag);
        }
        for (EnvVar e : txn.getEnv()) {
            assertFalse(CLUSTER_KEYS.contains(e.getName()), e.getName() + " set per container");
        }
        // the log's block size is the cluster's, from the same ConfigMap key
        final EnvVar logBlock = envVar(container(chart.logServer().getSpec().getTemplate()), "MELDB_LOG_BLOCK_SIZE");
        assertEquals(cluster.getMetadata().getName(), logBlock.getValueFrom().getConfigMapKeyRef().getName());
        assertEquals("MELDB_TXN_BLOCK_SIZE", logBlock.getValueFrom().getConfigMapKeyRef().getKey());
        // the pod's server id is its ordinal + 1, from its own name
        assertEquals("metadata.name", envVar(txn, "MELDB_TXN_POD_NAME").getValueFrom().getFieldRef().getFieldPath());
    }

    @Test
    void changingTheMeldConfigurationRollsTheTxnServers() {
        final String before = RenderedChart.render().txnServers().getSpec().getTemplate().getMetadata()
            .getAnnotations().get("checksum/cluster");
        final RenderedChart changed = RenderedChart.render(List.of(), Map.of("cluster.groupMeld", "true"));
        assertEquals("true", changed.clusterConfig().getData().get("MELDB_TXN_GROUP_MELD"));
        assertNotNull(before);
        assertNotEquals(before, changed.txnServers().getSpec().getTemplate().getMetadata().getAnnotations()
            .get("checksum/cluster"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"values.yaml", "values-dev.yaml", "values-ha.yaml"})
    void probesAndServicesPointAtPortsTheServersAreToldToServe(final String values) {
        final RenderedChart chart = render(values);
        final Map<String, String> portFlags = Map.of("log", "--port", "rpc", "--port", "jdbc", "--port",
            "metrics", "--metrics-port", "postgresql", "--pg-port");
        chart.podTemplates().forEach((role, pod) -> {
            final Container c = container(pod);
            for (ContainerPort p : c.getPorts()) {
                if (p.getName().equals("raft")) {
                    // a replicated log's Raft port is each replica's entry in --peers (id=host:raftPort:logPort)
                    assertTrue(arg(c, "--peers").contains(":" + p.getContainerPort() + ":" + arg(c, "--port")),
                        role + ": the Raft port is not the one --peers names");
                    continue;
                }
                final String flag = portFlags.get(p.getName());
                assertNotNull(flag, role + ": unexpected port " + p.getName());
                assertEquals(String.valueOf(p.getContainerPort()), arg(c, flag),
                    role + ": port " + p.getName() + " is not what " + flag + " says");
                assertEquals("0.0.0.0", arg(c, "--host"), role + " must listen beyond loopback");
            }
            final List<Probe> probes = new ArrayList<>();
            probes.add(Objects.requireNonNull(c.getReadinessProbe(), role + " readiness"));
            probes.add(Objects.requireNonNull(c.getLivenessProbe(), role + " liveness"));
            if (c.getStartupProbe() != null) {
                probes.add(c.getStartupProbe());
            }
            for (Probe probe : probes) {
                final IntOrString port = probe.getHttpGet() != null ? probe.getHttpGet().getPort()
                    : probe.getTcpSocket().getPort();
                assertNotNull(portOf(c, port), role + ": probe on a port the container does not expose: " + port);
            }
            assertEquals("/health", c.getReadinessProbe().getHttpGet().getPath(), role);
            assertEquals("metrics", c.getReadinessProbe().getHttpGet().getPort().getStrVal(), role);
        });
        for (Service s : chart.all(Service.class)) {
            final List<PodTemplateSpec> selected = chart.podTemplates().values().stream()
                .filter(p -> matches(s.getSpec().getSelector(), p)).toList();
            assertEquals(1, selected.size(), s.getMetadata().getName() + " selects " + selected.size() + " roles");
            for (ServicePort sp : s.getSpec().getPorts()) {
                final ContainerPort target = portOf(container(selected.get(0)), sp.getTargetPort());
                assertNotNull(target, s.getMetadata().getName() + " targets a port no container has");
                assertEquals(sp.getPort(), target.getContainerPort());
            }
        }
    }

    @Test
    void gatewayListsEveryTxnServerByItsStableName() {
        final RenderedChart chart = RenderedChart.render(List.of("values-ha.yaml"),
            Map.of("txnServer.replicas", "4"));
        final String list = arg(container(chart.gateway().getSpec().getTemplate()), "--txn-servers");
        final String svc = chart.txnServers().getSpec().getServiceName();
        assertEquals(svc, chart.service(svc).getMetadata().getName());
        assertEquals("None", chart.service(svc).getSpec().getClusterIP());
        final List<String> expected = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            expected.add(svc + "-" + i + "." + svc + ".prod.svc.cluster.local:7430");
        }
        assertEquals(String.join(",", expected), list);
        assertEquals(4, chart.txnServers().getSpec().getReplicas());
        final String log = chart.logServer().getSpec().getServiceName();
        assertEquals(log + "-0." + log + ".prod.svc.cluster.local:7420," + log + "-1." + log
                + ".prod.svc.cluster.local:7420," + log + "-2." + log + ".prod.svc.cluster.local:7420",
            arg(container(chart.txnServers().getSpec().getTemplate()), "--log"), "every log replica, by its stable name");
        final String single = RenderedChart.render(List.of(), Map.of()).logServer().getSpec().getServiceName();
        assertEquals(single + "-0." + single + ".prod.svc.cluster.local:7420",
            arg(container(RenderedChart.render(List.of(), Map.of()).txnServers().getSpec().getTemplate()), "--log"));
    }

    @Test
    void haValuesReplicateTheLogOverThreePodsWithPeersFromTheirStableNames() {
        final RenderedChart chart = RenderedChart.render("values-ha.yaml");
        final var logSet = chart.logServer();
        assertEquals(3, logSet.getSpec().getReplicas());
        assertEquals("Parallel", logSet.getSpec().getPodManagementPolicy(), "a majority must start together");
        final Container c = container(logSet.getSpec().getTemplate());
        assertEquals("3", arg(c, "--replication-factor"));
        assertEquals("$(POD_NAME)", arg(c, "--node-id"));
        assertEquals("metadata.name", envVar(c, "POD_NAME").getValueFrom().getFieldRef().getFieldPath());
        final String svc = logSet.getSpec().getServiceName();
        final List<String> peers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            // the node id is the pod's name, so that $(POD_NAME) finds itself in the list
            peers.add(logSet.getMetadata().getName() + "-" + i + "=" + svc + "-" + i + "." + svc
                + ".prod.svc.cluster.local:7422:7420");
        }
        assertEquals(String.join(",", peers), arg(c, "--peers"));
        assertEquals("true", arg(c, "--raft-trust-network"), "the NetworkPolicy guards the Raft port");
        assertFalse(container(RenderedChart.render(List.of("values-ha.yaml"), Map.of("networkPolicy.enabled", "false"))
            .logServer().getSpec().getTemplate()).getArgs().contains("--raft-trust-network"),
            "without the NetworkPolicy the Raft port is not vouched for");
        final var tls = RenderedChart.render(List.of("values-ha.yaml"), Map.of("logServer.raftTls.secretName", "raft-certs"))
            .logServer().getSpec().getTemplate();
        final Container tc = container(tls);
        assertEquals("/etc/meldb/raft-tls/tls.crt", arg(tc, "--raft-tls-cert"));
        assertEquals("/etc/meldb/raft-tls/tls.key", arg(tc, "--raft-tls-key"));
        assertEquals("/etc/meldb/raft-tls/ca.crt", arg(tc, "--raft-tls-ca"));
        assertFalse(tc.getArgs().contains("--raft-trust-network"), "TLS guards the port, not the network");
        assertTrue(tc.getVolumeMounts().stream().anyMatch(m -> "/etc/meldb/raft-tls".equals(m.getMountPath())));
        assertTrue(tls.getSpec().getVolumes().stream().anyMatch(v -> v.getSecret() != null
            && "raft-certs".equals(v.getSecret().getSecretName())), "the Secret is mounted");
        assertTrue(c.getPorts().stream().anyMatch(p -> "raft".equals(p.getName()) && p.getContainerPort() == 7422));
        assertTrue(chart.service(svc).getSpec().getPorts().stream().anyMatch(p -> p.getPort() == 7422),
            "the headless service names the Raft port");
        final PodDisruptionBudget pdb = chart.get(PodDisruptionBudget.class, RELEASE + "-meldb-log");
        assertEquals(1, pdb.getSpec().getMaxUnavailable().getIntVal(), "a drain keeps a majority of the log");
        final var anti = logSet.getSpec().getTemplate().getSpec().getAffinity().getPodAntiAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution();
        assertEquals("kubernetes.io/hostname", anti.get(0).getTopologyKey(), "one log replica per node");
        // the single-server default passes none of it
        final Container one = container(RenderedChart.render(List.of(), Map.of()).logServer().getSpec().getTemplate());
        assertFalse(one.getArgs().contains("--replication-factor"));
        assertFalse(one.getArgs().contains("--peers"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"values.yaml", "values-ha.yaml"})
    void dataLivesOnVolumesAndTheRootFilesystemIsReadOnly(final String values) {
        final RenderedChart chart = render(values);
        chart.podTemplates().forEach((role, pod) -> {
            final Container c = container(pod);
            assertTrue(c.getSecurityContext().getReadOnlyRootFilesystem(), role);
            assertFalse(c.getSecurityContext().getAllowPrivilegeEscalation(), role);
            assertEquals(List.of("ALL"), c.getSecurityContext().getCapabilities().getDrop(), role);
            assertTrue(pod.getSpec().getSecurityContext().getRunAsNonRoot(), role);
            assertNotEquals(0L, pod.getSpec().getSecurityContext().getRunAsUser(), role);
            assertTrue(mountOf(c, "/tmp").isPresent(), role + " needs a writable /tmp");
            assertNotNull(volume(pod, mountOf(c, "/tmp").get().getName()).getEmptyDir(), role);
            assertNotNull(envVar(c, "JDK_JAVA_OPTIONS"), role + ": container memory sizing");
            assertTrue(envVar(c, "JDK_JAVA_OPTIONS").getValue().contains("MaxRAMPercentage"), role);
            assertNotNull(c.getResources().getLimits().get("memory"), role + " has no memory limit");
        });
        final Container log = container(chart.logServer().getSpec().getTemplate());
        final String dataDir = arg(log, "--data-dir");
        final VolumeMount data = mountOf(log, dataDir).orElseThrow(() -> new AssertionError(dataDir + " not mounted"));
        assertFalse(data.getReadOnly() != null && data.getReadOnly());
        assertEquals(1, chart.logServer().getSpec().getVolumeClaimTemplates().stream()
            .filter(t -> t.getMetadata().getName().equals(data.getName())).count(),
            "the log's data is on the pod's PersistentVolumeClaim");
    }

    @ParameterizedTest
    @ValueSource(strings = {"values.yaml", "values-ha.yaml"})
    void networkPoliciesLetOnlyGatewayReachTxnAndOnlyTxnReachLog(final String values) {
        final RenderedChart chart = render(values);
        final Map<String, PodTemplateSpec> pods = chart.podTemplates();
        assertOnlyPeer(chart.get(NetworkPolicy.class, RELEASE + "-meldb-log"), pods, "log", "txn", "--port");
        assertOnlyPeer(chart.get(NetworkPolicy.class, RELEASE + "-meldb-txn"), pods, "txn", "gateway", "--port");
        final NetworkPolicy gw = chart.get(NetworkPolicy.class, RELEASE + "-meldb-gateway");
        assertTrue(matches(gw.getSpec().getPodSelector(), pods.get("gateway")));
    }

    private static void assertOnlyPeer(final NetworkPolicy np, final Map<String, PodTemplateSpec> pods,
                                       final String target, final String peer, final String portFlag) {
        pods.forEach((role, pod) -> assertEquals(role.equals(target), matches(np.getSpec().getPodSelector(), pod),
            np.getMetadata().getName() + " selects " + role));
        assertEquals(List.of("Ingress"), np.getSpec().getPolicyTypes());
        final int servicePort = Integer.parseInt(arg(container(pods.get(target)), portFlag));
        final int metricsPort = Integer.parseInt(arg(container(pods.get(target)), "--metrics-port"));
        boolean serviceRuleSeen = false;
        for (NetworkPolicyIngressRule rule : np.getSpec().getIngress()) {
            final Set<Integer> ports = new TreeSet<>();
            rule.getPorts().forEach(p -> ports.add(p.getPort().getIntVal()));
            if (ports.contains(servicePort)) {
                serviceRuleSeen = true;
                assertEquals(1, rule.getFrom().size());
                pods.forEach((role, pod) -> assertEquals(role.equals(peer),
                    matches(rule.getFrom().get(0).getPodSelector(), pod),
                    np.getMetadata().getName() + ": " + role + " reaching " + target));
                assertNull(rule.getFrom().get(0).getNamespaceSelector());
            } else if (target.equals("log") && !rule.getFrom().isEmpty() && ports.equals(Set.of(7422))) {
                // a replicated log: Raft between the log pods only
                pods.forEach((role, pod) -> assertEquals(role.equals("log"),
                    matches(rule.getFrom().get(0).getPodSelector(), pod), "Raft port reached by " + role));
            } else {
                assertEquals(Set.of(metricsPort), ports, "only the metrics port is open beyond the peer");
            }
        }
        assertTrue(serviceRuleSeen, np.getMetadata().getName() + " has no rule for the service port");
    }

    @ParameterizedTest
    @ValueSource(strings = {"values.yaml", "values-ha.yaml"})
    void theClusterSecretIsMountedWhereEveryServersFlagPointsByDefault(final String values) {
        final RenderedChart chart = render(values);
        final Secret auth = chart.get(Secret.class, RELEASE + "-meldb-auth");
        assertTrue(RenderedChart.secretValue(auth, "cluster-secret").length() >= 32);
        chart.podTemplates().forEach((role, pod) ->
            assertSecretFileMounted(pod, arg(container(pod), "--cluster-secret-file"), auth, "cluster-secret"));
        final PodTemplateSpec gw = chart.podTemplates().get("gateway");
        final Secret users = chart.get(Secret.class, RELEASE + "-meldb-pg-users");
        assertSecretFileMounted(gw, arg(container(gw), "--pg-users-file"), users, "users");
        assertEquals("meldb:" + RenderedChart.secretValue(users, "password") + "\n",
            RenderedChart.secretValue(users, "users"));
    }

    @Test
    void anExistingSecretIsReferencedInsteadOfCreated() {
        final RenderedChart chart = RenderedChart.render(List.of(), Map.of("auth.existingSecret", "mine",
            "gateway.postgresql.existingSecret", "pg-mine"));
        assertTrue(chart.all(Secret.class).isEmpty(), "no Secret rendered");
        chart.podTemplates().forEach((role, pod) -> {
            final String file = arg(container(pod), "--cluster-secret-file");
            final VolumeMount m = mountOf(container(pod), file).orElseThrow();
            assertEquals("mine", volume(pod, m.getName()).getSecret().getSecretName(), role);
        });
    }

    @Test
    void authCanBeTurnedOffAndThenNoServerGetsTheFlag() {
        final RenderedChart chart = RenderedChart.render(List.of(), Map.of("auth.enabled", "false"));
        chart.podTemplates().forEach((role, pod) ->
            assertFalse(container(pod).getArgs().contains("--cluster-secret-file"), role));
    }

    @Test
    void haValuesSpreadPodsAndBoundDisruptions() {
        final RenderedChart chart = RenderedChart.render("values-ha.yaml");
        for (String role : List.of("txn", "gateway")) {
            final PodTemplateSpec pod = chart.podTemplates().get(role);
            final var terms = pod.getSpec().getAffinity().getPodAntiAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution();
            assertEquals(1, terms.size(), role);
            assertEquals("kubernetes.io/hostname", terms.get(0).getTopologyKey());
            assertTrue(matches(terms.get(0).getLabelSelector(), pod), role + " anti-affinity misses its own pods");
            final PodDisruptionBudget pdb = chart.get(PodDisruptionBudget.class, RELEASE + "-meldb-" + role);
            assertEquals(1, pdb.getSpec().getMaxUnavailable().getIntVal());
            chart.podTemplates().forEach((r, p) -> assertEquals(r.equals(role),
                matches(pdb.getSpec().getSelector(), p), pdb.getMetadata().getName() + " selects " + r));
        }
        assertEquals(3, chart.txnServers().getSpec().getReplicas());
        assertEquals(2, chart.gateway().getSpec().getReplicas());
        assertEquals("fsync", arg(container(chart.logServer().getSpec().getTemplate()), "--durability"));
        assertTrue(chart.yaml.contains("kind: ServiceMonitor"));
    }

    @Test
    void devValuesRenderOneOfEachWithoutBudgets() {
        final RenderedChart chart = RenderedChart.render("values-dev.yaml");
        assertEquals(1, chart.txnServers().getSpec().getReplicas());
        assertEquals(1, chart.gateway().getSpec().getReplicas());
        assertTrue(chart.all(PodDisruptionBudget.class).isEmpty());
        assertNull(chart.txnServers().getSpec().getTemplate().getSpec().getAffinity());
    }

    @Test
    void anEvenNumberOfLogServersIsRefusedWithTheReason() {
        final Exception e = assertThrows(Exception.class,
            () -> RenderedChart.render(List.of(), Map.of("logServer.replicas", "2")));
        assertTrue(e.getMessage().contains("logServer.replicas must be 1 or an odd number"), e.getMessage());
    }

    // ------------------------------------------------------------------------------------------------ helpers

    static boolean matches(final Map<String, String> selector, final PodTemplateSpec pod) {
        return !selector.isEmpty() && pod.getMetadata().getLabels().entrySet().containsAll(selector.entrySet());
    }

    static boolean matches(final LabelSelector selector, final PodTemplateSpec pod) {
        assertTrue(selector.getMatchExpressions() == null || selector.getMatchExpressions().isEmpty());
        return matches(selector.getMatchLabels(), pod);
    }

    static ContainerPort portOf(final Container c, final IntOrString port) {
        return c.getPorts().stream().filter(p -> port.getStrVal() != null ? port.getStrVal().equals(p.getName())
            : port.getIntVal().equals(p.getContainerPort())).findFirst().orElse(null);
    }

    static EnvVar envVar(final Container c, final String name) {
        return c.getEnv().stream().filter(e -> e.getName().equals(name)).findFirst()
            .orElseThrow(() -> new AssertionError(c.getName() + " has no env " + name));
    }

    static java.util.Optional<VolumeMount> mountOf(final Container c, final String path) {
        return c.getVolumeMounts().stream()
            .filter(m -> path.equals(m.getMountPath()) || path.startsWith(m.getMountPath() + "/")).findFirst();
    }

    static Volume volume(final PodTemplateSpec pod, final String name) {
        return pod.getSpec().getVolumes().stream().filter(v -> v.getName().equals(name)).findFirst()
            .orElseThrow(() -> new AssertionError("no volume " + name));
    }

    private static void assertSecretFileMounted(final PodTemplateSpec pod, final String file, final Secret secret,
                                                final String key) {
        assertNotNull(file, "flag missing");
        final VolumeMount m = mountOf(container(pod), file).orElseThrow(() -> new AssertionError(file + " not mounted"));
        assertTrue(m.getReadOnly());
        final Volume v = volume(pod, m.getName());
        assertEquals(secret.getMetadata().getName(), v.getSecret().getSecretName());
        final String relative = file.substring(m.getMountPath().length() + 1);
        assertTrue(v.getSecret().getItems().stream().anyMatch(i -> i.getKey().equals(key)
            && i.getPath().equals(relative)), file + " is not the Secret's key " + key);
        assertTrue(secret.getData().containsKey(key));
    }
}
