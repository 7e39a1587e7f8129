package io.meldb.deploy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The chart rendered by {@code helm template} in-process (helm-java) and parsed strictly into Kubernetes API types,
 * with look-ups by kind and name for the tests.
 */
final class RenderedChart {
    static final Path CHART = Path.of(System.getProperty("meldb.chart.dir", "../helm/meldb")).toAbsolutePath()
        .normalize();
    static final String RELEASE = "db";
    static final String NAMESPACE = "prod";
    /** The oldest Kubernetes the chart supports (Chart.yaml kubeVersion). */
    static final String KUBE_VERSION = "1.25.0";

    final String yaml;
    final List<HasMetadata> objects;

    private RenderedChart(final String yaml) {
        this.yaml = yaml;
        final List<HasMetadata> parsed = new ArrayList<>();
        for (String doc : yaml.split("(?m)^---\\s*$")) {
            if (doc.lines().anyMatch(l -> !l.isBlank() && !l.startsWith("#"))) {
                parsed.add(StrictKubernetes.parse(doc));
            }
        }
        this.objects = List.copyOf(parsed);
    }

    /** Renders with the chart's values.yaml, then each of {@code valuesFiles} (names in the chart), then sets. */
    static RenderedChart render(final List<String> valuesFiles, final Map<String, Object> sets) {
        TemplateCommand t = new Helm(CHART).template().withName(RELEASE).withNamespace(NAMESPACE)
            .withKubeVersion(KUBE_VERSION)
            // helm-java's template performs lookup against a cluster (helm's own does not): no cluster here
            .set("lookupExistingSecrets", "false");
        for (String f : valuesFiles) {
            t = t.withValuesFile(CHART.resolve(f));
        }
        for (Map.Entry<String, Object> e : sets.entrySet()) {
            t = t.set(e.getKey(), e.getValue());
        }
        return new RenderedChart(t.call());
    }

    static RenderedChart render(final String... valuesFiles) {
        return render(List.of(valuesFiles), Map.of());
    }

    <T extends HasMetadata> List<T> all(final Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
    }

    <T extends HasMetadata> T get(final Class<T> type, final String name) {
        return all(type).stream().filter(o -> o.getMetadata().getName().equals(name)).findFirst()
            .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " " + name + " in:\n"
                + objects.stream().map(o -> o.getKind() + " " + o.getMetadata().getName())
                    .collect(Collectors.joining("\n"))));
    }

    StatefulSet logServer() {
        return get(StatefulSet.class, RELEASE + "-meldb-log");
    }

    StatefulSet txnServers() {
        return get(StatefulSet.class, RELEASE + "-meldb-txn");
    }

    Deployment gateway() {
        return get(Deployment.class, RELEASE + "-meldb-gateway");
    }

    ConfigMap clusterConfig() {
        return get(ConfigMap.class, RELEASE + "-meldb-cluster");
    }

    Service service(final String name) {
        return get(Service.class, name);
    }

    /** The pod templates of the three roles, by role. */
    Map<String, PodTemplateSpec> podTemplates() {
        final Map<String, PodTemplateSpec> m = new LinkedHashMap<>();
        m.put("log", logServer().getSpec().getTemplate());
        m.put("txn", txnServers().getSpec().getTemplate());
        m.put("gateway", gateway().getSpec().getTemplate());
        return m;
    }

    static Container container(final PodTemplateSpec pod) {
        final List<Container> cs = pod.getSpec().getContainers();
        if (cs.size() != 1) {
            throw new AssertionError("one container per MeldDB pod, got " + cs.size());
        }
        return cs.get(0);
    }

    /** The value after {@code flag} in the container's args, or null. */
    static String arg(final Container c, final String flag) {
        final List<String> args = c.getArgs();
        final int i = args.indexOf(flag);
        return i < 0 || i + 1 >= args.size() ? null : args.get(i + 1);
    }

    /** A Secret's key, decoded. */
    static String secretValue(final Secret s, final String key) {
        final String b64 = s.getData().get(key);
        if (b64 == null) {
            throw new AssertionError("Secret " + s.getMetadata().getName() + " has no key " + key);
        }
        return new String(Base64.getDecoder().decode(b64), java.nio.charset.StandardCharsets.UTF_8);
    }
}
