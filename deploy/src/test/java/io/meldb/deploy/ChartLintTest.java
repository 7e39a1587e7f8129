package io.meldb.deploy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code helm lint --strict} of the chart with its default, development and HA values. Helm's lint reads only the
 * chart's own values.yaml, so the other values files are merged into a copy of the chart first.
 */
class ChartLintTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @Test
    void defaultValuesPassStrictLint() {
        assertLintClean(RenderedChart.CHART);
    }

    @Test
    void haValuesPassStrictLint(@TempDir final Path dir) throws IOException {
        assertLintClean(chartWithValues(dir, "values-ha.yaml"));
    }

    @Test
    void devValuesPassStrictLint(@TempDir final Path dir) throws IOException {
        assertLintClean(chartWithValues(dir, "values-dev.yaml"));
    }

    @Test
    void strictLintReportsABrokenTemplate(@TempDir final Path dir) throws IOException {
        // proves that lint renders the templates it is given (helm lint reports a template's own `fail` only as
        // INFO, so the chart's value checks are tested through helm template in ChartRenderTest)
        final Path chart = chartWithValues(dir, "values-dev.yaml");
        final Path t = chart.resolve("templates/pdb.yaml");
        Files.writeString(t, Files.readString(t).replace("{{- end }}\n{{- end }}", "{{- end }}"));
        final LintResult r = new Helm(chart).lint().strict().call();
        assertTrue(r.isFailed(), "lint should fail: " + r.getMessages());
        assertTrue(String.join("\n", r.getMessages()).contains("pdb.yaml"), String.join("\n", r.getMessages()));
    }

    private static void assertLintClean(final Path chart) {
        final LintResult r = new Helm(chart).lint().strict().call();
        assertFalse(r.isFailed(), String.join("\n", r.getMessages()));
    }

    /** A copy of the chart whose values.yaml is values.yaml deep-merged with {@code valuesFile}. */
    static Path chartWithValues(final Path dir, final String valuesFile) throws IOException {
        return chartWithValues(dir, valuesFile, Map.of());
    }

    static Path chartWithValues(final Path dir, final String valuesFile, final Map<String, Object> extra)
        throws IOException {
        final Path copy = dir.resolve("meldb");
        try (Stream<Path> files = Files.walk(RenderedChart.CHART)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                final Path target = copy.resolve(RenderedChart.CHART.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
        @SuppressWarnings("unchecked")
        final Map<String, Object> base = YAML.readValue(RenderedChart.CHART.resolve("values.yaml").toFile(), Map.class);
        @SuppressWarnings("unchecked")
        final Map<String, Object> over = YAML.readValue(RenderedChart.CHART.resolve(valuesFile).toFile(), Map.class);
        YAML.writeValue(copy.resolve("values.yaml").toFile(), merge(merge(base, over), extra));
        return copy;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> merge(final Map<String, Object> base, final Map<String, Object> over) {
        final Map<String, Object> out = new LinkedHashMap<>(base);
        over.forEach((k, v) -> {
            if (v instanceof Map<?, ?> m && out.get(k) instanceof Map<?, ?> b) {
                out.put(k, merge((Map<String, Object>) b, (Map<String, Object>) m));
            } else {
                out.put(k, v);
            }
        });
        return out;
    }
}
