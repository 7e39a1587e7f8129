package io.meldb.log;

import java.util.Locale;

/**
 * When an append is acknowledged (docs/architecture.md "Failure and recovery": a log server acknowledges an append only once
 * the block is stored as configured).
 */
public enum Durability {
    /**
     * Acknowledge once the block is in the memory-mapped queue file, i.e. in the operating system's page cache.
     * Survives a crash or {@code kill -9} of the server process; does not survive power loss or a kernel crash.
     */
    PAGE_CACHE("page-cache"),
    /**
     * Acknowledge once the block has been forced to the storage device ({@code msync(MS_SYNC)} of the newly
     * written range, one per batch of appends). Survives power loss as far as the device honours flushes.
     */
    FSYNC("fsync");

    private final String flag;

    Durability(String flag) {
        this.flag = flag;
    }

    /** The spelling used by the {@code --durability} flag. */
    public String flag() {
        return flag;
    }

    public static Durability parse(String s) {
        String v = s.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        for (Durability d : values()) {
            if (d.flag.equals(v)) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown durability '" + s + "' (expected page-cache or fsync)");
    }
}
