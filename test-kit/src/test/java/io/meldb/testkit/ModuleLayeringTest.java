package io.meldb.testkit;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The module map of docs/architecture.md, held against the sources: every main class of a module references (by
 * import or by qualified name, outside comments and strings) only classes of that module or of the modules below it
 * in {@link #BELOW}, and each module's pom declares no MeldDB module outside that set. Maven already refuses cycles;
 * this catches a dependency added in the wrong direction, which Maven would accept.
 */
class ModuleLayeringTest {
    /** Each module and what its main code may use (transitively closed). The order is the layering, bottom up. */
    private static final Map<String, Set<String>> BELOW = new TreeMap<>(Map.ofEntries(
            Map.entry("process", Set.of()),
            Map.entry("test-kit", Set.of("process")),
            Map.entry("meld-core", Set.of()),
            Map.entry("wire", Set.of()),
            Map.entry("log-client", Set.of("wire")),
            Map.entry("log-server", Set.of("log-client", "wire")),
            Map.entry("txn-api", Set.of("meld-core")),
            Map.entry("txn-client", Set.of("txn-api", "meld-core", "wire")),
            Map.entry("txn-server", Set.of("txn-client", "txn-api", "meld-core", "log-client", "wire")),
            Map.entry("sql-parser", Set.of()),
            Map.entry("sql-gateway", Set.of("sql-parser", "txn-client", "txn-api", "meld-core", "wire")),
            Map.entry("jdbc-driver", Set.of("sql-gateway", "sql-parser", "txn-client", "txn-api", "meld-core", "wire")),
            Map.entry("launcher", Set.of("process", "sql-gateway", "sql-parser", "txn-server", "txn-client", "txn-api",
                    "meld-core", "log-server", "log-client", "wire")),
            Map.entry("deploy", Set.of("process", "launcher", "sql-gateway", "sql-parser", "txn-server", "txn-client",
                    "txn-api", "meld-core", "log-server", "log-client", "wire")),
            Map.entry("benchmarks", Set.of("process", "launcher", "sql-gateway", "sql-parser", "txn-server",
                    "txn-client", "txn-api", "meld-core", "log-server", "log-client", "wire"))));
    /** Known exceptions, each a debt with its way out: a dependency allowed only in the classes named. None today. */
    private static final Map<String, Set<String>> ALLOWED_ONLY_IN = Map.of();

    private static final Pattern REFERENCE = Pattern.compile("\\bio\\.meldb\\.(?:[a-z][a-z0-9_]*\\.)*[A-Z]\\w*");
    private static final Pattern POM_MODULE = Pattern.compile(
            "<dependency>\\s*<groupId>io\\.meldb</groupId>\\s*<artifactId>([\\w-]+)</artifactId>(.*?)</dependency>",
            Pattern.DOTALL);

    private static Path root() {
        Path here = Path.of("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("test-kit/pom.xml")) && Files.exists(p.resolve("meld-core/pom.xml"))) {
                return p;
            }
        }
        throw new IllegalStateException("not inside the MeldDB source tree: " + here);
    }

    @Test
    void shouldFindNoMainClassUsingAModuleAboveItsOwn() throws IOException {
        Path root = root();
        Map<String, String> owner = new TreeMap<>(); // class FQN -> module
        for (String module : BELOW.keySet()) {
            forEachMainSource(root, module, (fqn, source) -> owner.put(fqn, module));
        }
        assertTrue(owner.size() > 300, "found only " + owner.size() + " classes: is the tree where it should be?");
        List<String> violations = new ArrayList<>();
        for (String module : BELOW.keySet()) {
            forEachMainSource(root, module, (fqn, source) -> violations.addAll(violations(module, fqn, source, owner)));
        }
        assertEquals(List.of(), violations, "references to modules above the referencing one (docs/architecture.md)");
    }

    @Test
    void shouldDeclareNoMeldDbDependencyAboveTheModule() throws IOException {
        Path root = root();
        List<String> violations = new ArrayList<>();
        for (String module : BELOW.keySet()) {
            String pom = Files.readString(root.resolve(module).resolve("pom.xml"));
            Matcher m = POM_MODULE.matcher(pom);
            while (m.find()) {
                String dep = m.group(1).equals("meldb-jdbc") ? "jdbc-driver" : m.group(1);
                boolean testScope = m.group(2).contains("<scope>test</scope>");
                if (!testScope && !BELOW.get(module).contains(dep)) {
                    violations.add(module + "/pom.xml depends on " + dep);
                }
            }
        }
        assertEquals(List.of(), violations);
    }

    /** The checker itself: a wrong-direction import is found, a comment or a string naming a class is not. */
    @Test
    void shouldReportAWrongDirectionReferenceButNotOneInACommentOrString() {
        Map<String, String> owner = Map.of("io.meldb.log.server.LogServer", "log-server",
                "io.meldb.wire.Frame", "wire", "io.meldb.txn.EmbeddedNode", "txn-server");
        String source = "package io.meldb.wire;\nimport io.meldb.log.server.LogServer;\n"
                + "/** see {@link io.meldb.log.server.LogServer} */\nclass X { String s = \"io.meldb.log.server.LogServer\"; }\n";
        assertEquals(List.of("wire: io.meldb.wire.X uses io.meldb.log.server.LogServer (log-server)"),
                violations("wire", "io.meldb.wire.X", source, owner));
        assertEquals(List.of(), violations("wire", "io.meldb.wire.X",
                "package io.meldb.wire;\n// io.meldb.log.server.LogServer\nclass X { io.meldb.wire.Frame f; }\n", owner));
    }

    static List<String> violations(String module, String fqn, String source, Map<String, String> owner) {
        Set<String> found = new TreeSet<>();
        Matcher m = REFERENCE.matcher(code(source));
        while (m.find()) {
            String ref = classOf(m.group(), owner);
            String refModule = ref == null ? null : owner.get(ref);
            if (refModule == null || refModule.equals(module) || BELOW.get(module).contains(refModule)
                    && ALLOWED_ONLY_IN.getOrDefault(module + "->" + refModule, Set.of(fqn)).contains(fqn)) {
                continue;
            }
            found.add(module + ": " + fqn + " uses " + ref + " (" + refModule + ")");
        }
        return new ArrayList<>(found);
    }

    /** The class a qualified name refers to: the name itself, or with trailing members (static imports) removed. */
    private static String classOf(String name, Map<String, String> owner) {
        for (String n = name; n.contains("."); n = n.substring(0, n.lastIndexOf('.'))) {
            if (owner.containsKey(n)) {
                return n;
            }
        }
        return null;
    }

    /** The source without comments, string and char literals (what they name is not a compile dependency). */
    private static String code(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '/' && i + 1 < s.length() && s.charAt(i + 1) == '/') {
                while (i < s.length() && s.charAt(i) != '\n') {
                    i++;
                }
                b.append('\n');
            } else if (c == '/' && i + 1 < s.length() && s.charAt(i + 1) == '*') {
                int end = s.indexOf("*/", i + 2);
                i = end < 0 ? s.length() : end + 1;
                b.append(' ');
            } else if (c == '"' || c == '\'') {
                if (c == '"' && s.startsWith("\"\"\"", i)) {
                    int end = s.indexOf("\"\"\"", i + 3);
                    i = end < 0 ? s.length() : end + 2;
                } else {
                    for (i++; i < s.length() && s.charAt(i) != c; i++) {
                        if (s.charAt(i) == '\\') {
                            i++;
                        }
                    }
                }
                b.append("\"\"");
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private interface SourceVisitor {
        void visit(String fqn, String source);
    }

    private static void forEachMainSource(Path root, String module, SourceVisitor visitor) throws IOException {
        Path src = root.resolve(module).resolve("src/main/java");
        if (!Files.isDirectory(src)) {
            return;
        }
        try (Stream<Path> files = Files.walk(src)) {
            files.filter(p -> p.toString().endsWith(".java") && !p.endsWith("package-info.java")).forEach(p -> {
                String rel = src.relativize(p).toString().replace(p.getFileSystem().getSeparator(), ".");
                try {
                    visitor.visit(rel.substring(0, rel.length() - ".java".length()), Files.readString(p));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
