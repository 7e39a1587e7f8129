package io.meldb.process;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JavaCommandTest {
    @Test
    void theCommandCarriesTheFlagsOfBinJvmFlagsAndTheHeapBeforeTheMainClass() {
        final List<String> cmd = JavaCommand.main("x.Y").heap("96m").args("a", "b").build();
        assertFalse(JavaCommand.jvmFlags().isEmpty());
        assertEquals(JavaCommand.jvmFlags(), cmd.subList(1, 1 + JavaCommand.jvmFlags().size()));
        assertTrue(cmd.get(0).endsWith("/bin/java"), cmd.get(0));
        assertEquals(List.of("-Xmx96m", "-cp", System.getProperty("java.class.path"), "x.Y", "a", "b"),
                cmd.subList(cmd.size() - 6, cmd.size()));
    }

    @Test
    void inheritJvmFlagsUsesThisJvmsOptionsAndNoHeapOfItsOwn() {
        final List<String> mine = ManagementFactory.getRuntimeMXBean().getInputArguments();
        final List<String> cmd = JavaCommand.main("x.Y").inheritJvmFlags().build();
        assertEquals(mine, cmd.subList(1, 1 + mine.size()));
        assertEquals(List.of("-cp", System.getProperty("java.class.path"), "x.Y"),
                cmd.subList(1 + mine.size(), cmd.size()));
        assertTrue(JavaCommand.main("x.Y").inheritJvmFlags().heap("1g").build().contains("-Xmx1g"));
        assertEquals(List.of("-cp", System.getProperty("java.class.path"), "x.Y"),
                JavaCommand.main("x.Y").inheritJvmFlags(flag -> false).build().subList(1, 4));
    }

    @Test
    void theFlagsFileCanBeNamedBySystemPropertyAndAMissingOneIsAClearError(@TempDir final Path dir)
            throws Exception {
        final Path flags = Files.writeString(dir.resolve("flags"), " -Da=1\n  -Db=2 \n");
        final String before = System.getProperty("meldb.jvm.flags.file");
        try {
            System.setProperty("meldb.jvm.flags.file", flags.toString());
            assertEquals(List.of("-Da=1", "-Db=2"), JavaCommand.jvmFlags());
            System.setProperty("meldb.jvm.flags.file", dir.resolve("absent").toString());
            final IllegalStateException e = assertThrows(IllegalStateException.class, JavaCommand::jvmFlags);
            assertTrue(e.getMessage().contains("absent"), e.getMessage());
        } finally {
            if (before == null) {
                System.clearProperty("meldb.jvm.flags.file");
            } else {
                System.setProperty("meldb.jvm.flags.file", before);
            }
        }
    }

    @Test
    void moduleFlagsAreTheAccessAndChronicleOptionsNotTheHeap() {
        assertTrue(JavaCommand.isModuleFlag("--add-opens=java.base/java.nio=ALL-UNNAMED"));
        assertTrue(JavaCommand.isModuleFlag("--add-exports=java.base/sun.nio.ch=ALL-UNNAMED"));
        assertTrue(JavaCommand.isModuleFlag("-Dchronicle.analytics.disable=true"));
        assertFalse(JavaCommand.isModuleFlag("-Xmx4g"));
        assertFalse(JavaCommand.isModuleFlag("-XX:+UseZGC"));
    }

    @Test
    void runUnderPutsTheWrapperBeforeJava() {
        final List<String> cmd = JavaCommand.main("x.Y").runUnder("taskset", "-c", "1").build();
        assertEquals(List.of("taskset", "-c", "1"), cmd.subList(0, 3));
        assertTrue(cmd.get(3).endsWith("/bin/java"), cmd.get(3));
    }
    @Test
    void aJdkToolLiesBesideThisJvmsJava() {
        final Path keytool = Path.of(JavaCommand.jdkTool("keytool"));
        assertTrue(Files.isExecutable(keytool), keytool.toString());
        assertEquals(Path.of(JavaCommand.main("x.Y").build().get(0)).getParent(), keytool.getParent());
    }
}
