package io.meldb.log.storage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PageToucherTest {

    @TempDir
    Path dir;

    @Test
    void faultsPagesInAheadOfTheWriterWithoutChangingTheirContents() throws Exception {
        // data beyond the position the writer reports: what a writer that has moved on since its report has written
        byte[] data = new byte[1 << 20];
        new Random(7).nextBytes(data);
        File file = dir.resolve("cycle.cq4").toFile();
        Files.write(file.toPath(), data);

        try (PageToucher toucher = new PageToucher(cycle -> file, "test-pretouch")) {
            toucher.writerAt(1, 4096);
            long touched = waitForTouched(toucher, 4096 + PageToucher.AHEAD);
            assertTrue(touched >= 4096 + PageToucher.AHEAD, "touched only " + touched + " bytes");
        }
        assertTrue(file.length() >= 4096 + PageToucher.AHEAD, "the file was not grown ahead: " + file.length());
        byte[] after = new byte[data.length];
        System.arraycopy(Files.readAllBytes(file.toPath()), 0, after, 0, after.length);
        assertArrayEquals(data, after);
    }

    @Test
    void keepsItsRunwayOneStepAtATimeAndGrowsTheFileInLargeExtensions() throws Exception {
        File file = dir.resolve("cycle.cq4").toFile();
        Files.write(file.toPath(), new byte[4096]);
        try (PageToucher toucher = new PageToucher(cycle -> file, "test-pretouch")) {
            toucher.writerAt(1, 0);
            long touched = waitForTouched(toucher, PageToucher.AHEAD);
            assertTrue(touched >= PageToucher.AHEAD, "touched only " + touched + " bytes");
            long grown = file.length();
            assertTrue(grown >= PageToucher.AHEAD + PageToucher.EXTEND, "grown to " + grown + " only");

            // the writer moves on by one step: the toucher is woken and restores the full runway
            toucher.writerAt(1, PageToucher.STEP);
            touched = waitForTouched(toucher, PageToucher.STEP + PageToucher.AHEAD);
            assertTrue(touched >= PageToucher.STEP + PageToucher.AHEAD, "touched only " + touched + " bytes");
            // no new extension while the previous one still covers the runway
            assertEquals(grown, file.length());
        }
    }

    /** Waits (up to 30 s) until the toucher has faulted in {@code bytes}; returns how much it has. */
    private static long waitForTouched(PageToucher toucher, long bytes) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (toucher.touched() < bytes && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        return toucher.touched();
    }

    @Test
    void populatesThroughTheKernelOnLinux() throws Exception {
        File file = dir.resolve("cycle.cq4").toFile();
        Files.write(file.toPath(), new byte[4096]);
        try (PageToucher toucher = new PageToucher(cycle -> file, "test-pretouch")) {
            toucher.writerAt(1, 0);
            waitForTouched(toucher, 1);
            if (System.getProperty("os.name").startsWith("Linux") && kernelAtLeast(5, 14)) {
                assertTrue(toucher.populating(), "madvise(MADV_POPULATE_WRITE) was refused on " + System.getProperty("os.version"));
            }
        }
    }

    private static boolean kernelAtLeast(int major, int minor) {
        String[] v = System.getProperty("os.version").split("[.-]");
        int ma = Integer.parseInt(v[0]);
        int mi = Integer.parseInt(v[1]);
        return ma > major || (ma == major && mi >= minor);
    }
}
