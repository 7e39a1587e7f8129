package io.meldb.core;

/**
 * Isolation levels a transaction can ask meld for (meld paper §3–4).
 *
 * <ul>
 *   <li>{@link #SERIALIZABLE}: reads enter the intention (DependsOn on read nodes, range dependencies for
 *   scans and for reads of absent keys), so meld aborts on read-write, write-write and phantom conflicts.</li>
 *   <li>{@link #SNAPSHOT}: no readset is logged; meld aborts only on write-write conflicts (first committer
 *   wins on the same key).</li>
 * </ul>
 * Read committed is not offered: every transaction already reads one consistent snapshot, which is stronger,
 * and a per-statement snapshot would need statement boundaries that this layer does not see.
 */
public enum Isolation {
    SERIALIZABLE(0),
    SNAPSHOT(1);

    private final int code;

    Isolation(final int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static Isolation fromCode(final int code) {
        switch (code) {
            case 0:
                return SERIALIZABLE;
            case 1:
                return SNAPSHOT;
            default:
                throw new IllegalArgumentException("unknown isolation code " + code);
        }
    }
}
