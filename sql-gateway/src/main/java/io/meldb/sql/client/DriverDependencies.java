package io.meldb.sql.client;

import java.sql.Driver;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Whether the libraries {@link MeldDriver} runs on are on the classpath, and Avatica's remote driver made only once
 * they are. {@code java.sql.DriverManager} swallows any error while it loads a driver through
 * {@code META-INF/services}, so a driver whose construction fails on a missing class just is not there ("No
 * suitable driver"). MeldDB's driver registers either way and, when something is missing, answers every connect
 * with an error naming what is missing and the jar that has it all ({@code io.meldb:meldb-jdbc}).
 */
final class DriverDependencies {
    /** A class the driver needs, named so that the shaded jar's relocation applies to the name. */
    private record Needed(String artifact, Supplier<Class<?>> probe) {
    }

    private static final List<Needed> NEEDED = List.of(
            new Needed("org.apache.calcite.avatica:avatica-core",
                    () -> org.apache.calcite.avatica.remote.Driver.class),
            new Needed("com.fasterxml.jackson.core:jackson-databind",
                    () -> com.fasterxml.jackson.databind.ObjectMapper.class),
            new Needed("com.google.protobuf:protobuf-java", () -> com.google.protobuf.Message.class),
            new Needed("org.apache.httpcomponents.client5:httpclient5",
                    () -> byName("org.apache.hc.client5.http.impl.classic.CloseableHttpClient")),
            new Needed("org.slf4j:slf4j-api", () -> org.slf4j.LoggerFactory.class));

    private DriverDependencies() {
    }

    /** What is missing, as a sentence for an error message, or null when everything is there. */
    static String missing() {
        final List<String> missing = new ArrayList<>();
        for (Needed n : NEEDED) {
            try {
                n.probe().get();
            } catch (LinkageError e) {
                missing.add(n.artifact() + " (" + e.getMessage() + ")");
            }
        }
        return missing.isEmpty() ? null : "MeldDB's JDBC driver cannot run: the classpath lacks "
                + String.join(", ", missing) + ". Use the single jar io.meldb:meldb-jdbc, which holds all of them";
    }

    /** A class that is only on the runtime classpath (shade relocates the name in this string too). */
    private static Class<?> byName(final String name) {
        try {
            return Class.forName(name, false, DriverDependencies.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new NoClassDefFoundError(name);
        }
    }

    /** Avatica's remote driver; only call once {@link #missing()} said nothing is missing. */
    static Driver avatica() {
        return new org.apache.calcite.avatica.remote.Driver();
    }
}
