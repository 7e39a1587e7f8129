package io.meldb.log.storage;

import net.openhft.posix.PosixAPI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Unsafe;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

/**
 * Faults in the pages of the current queue file ahead of the writer, on its own thread, so that the writer does not
 * take the first-write page faults itself (part of the Hyder II §5.1 log service's append path; the technique of
 * Aeron's pre-touched term buffers and of Chronicle Enterprise's pretoucher, which open-source Chronicle lacks).
 *
 * <p>Why: the first write to a page of a sparse memory-mapped file allocates the page and its disk block inside the
 * page fault, and on the ext4 volume we measured such faults regularly stall for 20-30 ms. Storage alone (no
 * network) showed p99 append latency of 45 ms at 20,000 appends/s of 8 KiB; with a toucher, 1.5 ms (same run
 * on tmpfs: under 1 ms). Writing zeros ahead would also work but could race with Chronicle's writer and destroy
 * data; faulting pages in cannot.
 *
 * <p>How: the toucher grows the file ahead with {@code fallocate} (never truncates, never overwrites), maps a window
 * of it itself ({@code mmap(MAP_SHARED)}: the same page-cache pages) and asks the kernel to fault the pages in with
 * {@code madvise(MADV_POPULATE_READ)} (Linux 5.14+), up to {@link #AHEAD} past the writer. That allocates the pages
 * (and, on our VMs, has the host back their memory) without touching their contents, and leaves them clean: the
 * writer's first write to each is then a write-protect fault that allocates no memory. It is also a system call: a
 * JVM thread inside one does not hold up a safepoint, whereas a Java thread stuck in a 20 ms page fault does, and
 * the whole JVM waits for it (measured: 20-30 ms "reaching safepoint" pauses while this thread faulted pages in
 * from Java). Where {@code MADV_POPULATE_READ} is refused (older kernels) it reads one int per page instead.
 * Without {@code fallocate} (not Linux) it touches within the file's current size only.
 *
 * <p>Why clean pages: faulting them in for writing ({@code MADV_POPULATE_WRITE}, as this class first did) leaves the
 * runway as dirty zero pages. Every {@code fdatasync} of the file, and under sustained load the kernel's write-back,
 * then also writes the runway out, and writing a page back write-protects it, which hands the writer the faults
 * this class exists to spare it and the disk a second write of each page. Measured with 16 clients: fsync
 * durability 18,500-21,800 appends/s written dirty against 27,800-29,800 clean; page-cache durability under
 * sustained load (10 s phases at 20,000 appends/s) store-alone p99 4.7 ms dirty against 1.5 ms clean (medians of
 * five); in short phases no worse.
 */
final class PageToucher implements Runnable, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PageToucher.class);
    private static final int PAGE = 4096;
    /** How far ahead of the writer pages are kept touched: about 100 ms of appends at full speed. */
    static final long AHEAD = 64L << 20;
    private static final long WINDOW = 64L << 20;
    /**
     * Bytes populated per system call, and how far the writer advances before it wakes the toucher again: about a
     * millisecond of work per wake-up where a fresh page costs a few microseconds (as on our VMs). Waking only at
     * half the runway made the toucher run for about 30 ms at a stretch, and on 2 CPUs the threads of the append
     * path waited behind it (storage-alone p99 2.2 ms against 1.3 ms with these short rounds).
     */
    static final long STEP = 256L << 10;
    /**
     * How much the file is grown at a time. Growing it by one step per wake-up ({@code fallocate} per 256 KiB)
     * cost the append path about 6% more CPU than these larger, rarer extensions.
     */
    static final long EXTEND = 32L << 20;
    /** The toucher only reads: its mapping cannot change the file. */
    private static final int PROT_READ = 0x1;
    private static final int MAP_SHARED = 0x1;
    private static final int O_RDWR = 2;
    private static final int MADV_POPULATE_READ = 22;
    /** madvise's answer to advice the kernel does not know. */
    private static final int EINVAL = 22;
    /** fallocate's answer when the disk is full: try again later, unlike a file system without fallocate. */
    private static final int ENOSPC = 28;
    private static final int SEEK_END = 2;
    private static final Unsafe UNSAFE = unsafe();
    /** Longest park while there is nothing to touch (it was 20 ms: 50 wake-ups a second of an idle log). */
    private static final long IDLE_PARK_NANOS = 1_000_000_000L;

    private final IntFunction<File> fileOfCycle;
    private final Thread thread;
    private volatile boolean running = true;
    /** Published by the writer after each batch. */
    private volatile int writerCycle = Integer.MIN_VALUE;
    private volatile long writerPosition;

    // toucher thread only
    private final PosixAPI posix;
    private int cycle = Integer.MIN_VALUE;
    private int fd = -1;
    private long windowAddress;
    private long windowStart;
    private long windowLength;
    private volatile long touched;
    private boolean extendable = true;
    /** The last extension failed for want of space (logged once until one succeeds). */
    private boolean outOfSpace;
    private boolean populate = true;

    PageToucher(IntFunction<File> fileOfCycle, String name) {
        this.fileOfCycle = fileOfCycle;
        this.posix = PosixAPI.posix();
        this.thread = new Thread(this, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Writer thread: where the writer is now (cycle of the current file, byte offset in it). */
    void writerAt(int cycle, long position) {
        boolean wake = cycle != writerCycle || position + AHEAD - STEP > touched;
        writerCycle = cycle;
        writerPosition = position;
        if (wake) {
            LockSupport.unpark(thread);
        }
    }

    /** Bytes of the current file faulted in so far (tests). */
    long touched() {
        return touched;
    }

    /** Whether pages are faulted in by {@code madvise} rather than touched from Java (tests, logs). */
    boolean populating() {
        return populate;
    }

    @Override
    public void run() {
        while (running) {
            try {
                if (!touchAhead()) {
                    // the writer unparks us when it has used up a step of its runway (and close() does): the bound
                    // is a safety net, long so that an idle log costs no wake-ups
                    LockSupport.parkNanos(IDLE_PARK_NANOS);
                }
            } catch (IOException | RuntimeException e) {
                // the file may have rolled away or been trimmed; start over at the writer's next report
                LOG.debug("page toucher: {}", e.toString());
                release();
                cycle = Integer.MIN_VALUE;
                LockSupport.parkNanos(50_000_000);
            }
        }
        release();
    }

    /** Opens the writer's current file if it moved to another; false if the writer has not reported yet. */
    private boolean followWriter() throws IOException {
        int c = writerCycle;
        if (c == Integer.MIN_VALUE) {
            return false;
        }
        if (c != cycle) {
            release();
            String path = fileOfCycle.apply(c).getPath();
            fd = posix.open(path, O_RDWR, 0644);
            if (fd < 0) {
                throw new IOException("cannot open " + path);
            }
            cycle = c;
            touched = 0;
        }
        return true;
    }

    /** Faults in up to {@link #AHEAD} past the writer; false if there was nothing to do. */
    private boolean touchAhead() throws IOException {
        if (!followWriter()) {
            return false;
        }
        int c = cycle;
        long position = writerPosition;
        long size = size();
        if (position + AHEAD > size && extendable) {
            extend(c, size, position + AHEAD + EXTEND - size);
            size = size();
        }
        long target = Math.min(position + AHEAD, size) & -PAGE;
        if (touched < position) {
            touched = (position + PAGE - 1) & -PAGE;
        }
        if (touched >= target) {
            return false;
        }
        while (touched < target && running && writerCycle == c) {
            if (windowAddress == 0 || touched < windowStart || touched >= windowStart + windowLength) {
                unmap();
                long length = Math.min(WINDOW, size - touched) & -PAGE;
                if (length <= 0) {
                    return false;
                }
                long address = posix.mmap(0, length, PROT_READ, MAP_SHARED, fd, touched);
                if (address == 0 || address == -1) {
                    throw new IOException("cannot map " + length + " bytes of " + fileOfCycle.apply(c) + " at " + touched);
                }
                windowAddress = address;
                windowStart = touched;
                windowLength = length;
            }
            long step = Math.min(Math.min(STEP, target - touched), windowStart + windowLength - touched);
            long address = windowAddress + (touched - windowStart);
            if (populate && posix.madvise(address, step, MADV_POPULATE_READ) != 0) {
                int errno = posix.lastError();
                if (errno != EINVAL) {
                    // e.g. EINTR, or EFAULT if the file shrank under the mapping: touching from Java there would
                    // be a SIGBUS, so start over from the file's size at the writer's next report
                    throw new IOException("madvise(MADV_POPULATE_READ) failed: " + posix.strerror(errno));
                }
                populate = false;
                LOG.info("page toucher: madvise(MADV_POPULATE_READ) refused (kernel before 5.14?); touching pages from Java");
            }
            if (!populate) {
                if (UNSAFE == null) {
                    return false;
                }
                for (long p = 0; p < step; p += PAGE) {
                    UNSAFE.getIntVolatile(null, address + p);
                }
            }
            touched += step;
        }
        return true;
    }

    /** The current file's size ({@code lseek(SEEK_END)}: the toucher reads and writes only through mappings). */
    private long size() throws IOException {
        long size = posix.lseek(fd, 0, SEEK_END);
        if (size < 0) {
            throw new IOException("cannot read the size of " + fileOfCycle.apply(cycle));
        }
        return size;
    }

    /**
     * Grows the file ahead of Chronicle with {@code fallocate(2)} (mode 0), which only allocates space and extends
     * the size, and so can never truncate or overwrite what Chronicle maps or writes, unlike
     * {@code RandomAccessFile.setLength}, which truncates if Chronicle grew the file meanwhile.
     */
    private void extend(int c, long from, long length) {
        try {
            if (posix.fallocate(fd, 0, from, length) == 0) {
                outOfSpace = false;
                return;
            }
            if (posix.lastError() == ENOSPC) {
                // the store refuses appends before the disk is full; try again once space is freed
                if (!outOfSpace) {
                    outOfSpace = true;
                    LOG.warn("page toucher: no space to extend {} by {} MiB ahead of the writer; will retry",
                            fileOfCycle.apply(c), length >> 20);
                }
                return;
            }
            extendable = false;
        } catch (RuntimeException | LinkageError e) {
            extendable = false;
        }
        LOG.info("page toucher: cannot fallocate {}; touching within the file's current size only", fileOfCycle.apply(c));
    }

    private void unmap() {
        if (windowAddress != 0) {
            posix.munmap(windowAddress, windowLength);
            windowAddress = 0;
        }
    }

    private void release() {
        unmap();
        if (fd >= 0) {
            posix.close(fd);
            fd = -1;
        }
    }

    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code sun.misc.Unsafe} (module jdk.unsupported, no flags needed) for the fallback's compare-and-set. */
    private static Unsafe unsafe() {
        try {
            Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return (Unsafe) f.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
