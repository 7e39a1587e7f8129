package io.meldb.deploy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Parses rendered manifests into the Kubernetes API types (fabric8's model) strictly: a kind or apiVersion the
 * chart should not produce, a field the type does not have (fabric8 keeps those in "additionalProperties", which
 * this walks), or a string where the API wants a number fails the parse, as the API server would refuse them.
 */
final class StrictKubernetes {
    /** apiVersion/kind -> the type it must parse as; anything else the chart renders is an error. */
    private static final Map<String, Class<? extends HasMetadata>> TYPES = Map.of(
        "v1/ConfigMap", ConfigMap.class,
        "v1/Secret", Secret.class,
        "v1/Service", Service.class,
        "apps/v1/StatefulSet", StatefulSet.class,
        "apps/v1/Deployment", Deployment.class,
        "policy/v1/PodDisruptionBudget", PodDisruptionBudget.class,
        "networking.k8s.io/v1/NetworkPolicy", NetworkPolicy.class);

    /** Custom resources: no Java type here, parsed generically and checked by the tests that render them. */
    private static final List<String> CUSTOM = List.of("monitoring.coreos.com/v1/ServiceMonitor");

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
        .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);

    static {
        YAML.coercionConfigFor(LogicalType.Integer).setCoercion(CoercionInputShape.String, CoercionAction.Fail);
        YAML.coercionConfigFor(LogicalType.Boolean).setCoercion(CoercionInputShape.String, CoercionAction.Fail);
        YAML.coercionConfigFor(LogicalType.Textual).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
    }

    private StrictKubernetes() {
    }

    static HasMetadata parse(final String document) {
        try {
            final Map<?, ?> head = YAML.readValue(document, Map.class);
            final String key = head.get("apiVersion") + "/" + head.get("kind");
            if (CUSTOM.contains(key)) {
                return YAML.readValue(document, GenericKubernetesResource.class);
            }
            final Class<? extends HasMetadata> type = TYPES.get(key);
            if (type == null) {
                throw new AssertionError("the chart renders " + key + ", which no test parses:\n" + document);
            }
            final HasMetadata object = YAML.readValue(document, type);
            requireNoUnknownFields(object, key + " " + object.getMetadata().getName());
            return object;
        } catch (java.io.IOException e) {
            throw new AssertionError("not a valid Kubernetes object: " + e.getMessage() + "\n" + document, e);
        }
    }

    static <T> T read(final String yaml, final Class<T> type) {
        try {
            return YAML.readValue(yaml, type);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Walks the model's getters: every object's additionalProperties (fields the API type lacks) must be empty. */
    private static void requireNoUnknownFields(final Object o, final String path) {
        if (o == null) {
            return;
        }
        if (o instanceof Collection<?> c) {
            int i = 0;
            for (Object e : c) {
                requireNoUnknownFields(e, path + "[" + i++ + "]");
            }
            return;
        }
        if (o instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                requireNoUnknownFields(e.getValue(), path + "." + e.getKey());
            }
            return;
        }
        if (!o.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) {
            return;
        }
        for (Method m : o.getClass().getMethods()) {
            if (m.getParameterCount() != 0 || Modifier.isStatic(m.getModifiers()) || !m.getName().startsWith("get")
                || m.getDeclaringClass() == Object.class) {
                continue;
            }
            final Object value;
            try {
                value = m.invoke(o);
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
            if (m.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    throw new AssertionError(path + ": fields the Kubernetes API does not have: " + extra.keySet());
                }
            } else {
                requireNoUnknownFields(value, path + "." + m.getName().substring(3));
            }
        }
    }
}
