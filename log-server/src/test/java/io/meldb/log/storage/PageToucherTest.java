package io.meldb.log.storage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
                assertTrue(toucher.populating(), "madvise(MADV_POPULATE_READ) was refused on " + System.getProperty("os.version"));
            }
        }
    }

    @Test
    void faultsPagesInCleanSoThatFsyncAndWriteBackLeaveTheRunwayAlone() throws Exception {
        assumeTrue(System.getProperty("os.name").startsWith("Linux") && kernelAtLeast(6, 5),
                "counting a file's dirty pages needs cachestat(2), Linux 6.5+");
        File file = dir.resolve("cycle.cq4").toFile();
        Files.write(file.toPath(), new byte[4096]);
        try (PageToucher toucher = new PageToucher(cycle -> file, "test-pretouch")) {
            toucher.writerAt(1, 0);
            assertTrue(waitForTouched(toucher, PageToucher.AHEAD) >= PageToucher.AHEAD);
        }
        long[] runway = cachestat(file);
        assertTrue(runway[0] >= PAGES_AHEAD / 2, "only " + runway[0] + " pages in the page cache");
        assertEquals(0, runway[1], "the runway was dirty: fdatasync and write-back would write it out");

        // the count sees a write: one page written through the file is dirty
        try (RandomAccessFile raf = new RandomAccessFile(file, "rw")) {
            raf.seek(8192);
            raf.write(1);
        }
        assertEquals(1, cachestat(file)[1]);
    }

    private static final long PAGES_AHEAD = PageToucher.AHEAD / 4096;

    /** Pages of the runway (past the first page, which Files.write dirtied) in the page cache, and how many are dirty. */
    private static long[] cachestat(File file) {
        int fd = LibC.INSTANCE.open(file.getPath(), 0);
        assertTrue(fd >= 0, "cannot open " + file);
        try (Memory range = new Memory(16); Memory stat = new Memory(40)) {
            range.setLong(0, 4096);
            range.setLong(8, PageToucher.AHEAD - 4096);
            stat.clear();
            assertEquals(0, LibC.INSTANCE.syscall(CACHESTAT, fd, range, stat, 0), "cachestat failed");
            return new long[]{stat.getLong(0), stat.getLong(8)};
        } finally {
            LibC.INSTANCE.close(fd);
        }
    }

    /** {@code cachestat(2)}'s number in the generic system call table, which x86-64 and arm64 share for it. */
    private static final int CACHESTAT = 451;

    private interface LibC extends Library {
        LibC INSTANCE = Native.load("c", LibC.class);

        int open(String path, int flags);

        int close(int fd);

        int syscall(int number, Object... args);
    }

    private static boolean kernelAtLeast(int major, int minor) {
        String[] v = System.getProperty("os.version").split("[.-]");
        int ma = Integer.parseInt(v[0]);
        int mi = Integer.parseInt(v[1]);
        return ma > major || (ma == major && mi >= minor);
    }
}
