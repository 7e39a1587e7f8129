package io.meldb.core;

/**
 * An intention block that failed verification (Hyder II §5.1 fixed-size log blocks). The message names the
 * block's log position and what is wrong. The {@link BlockReader} that threw it is unchanged, so the caller can
 * re-read the block (for example from another replica) or stop.
 */
public final class CorruptBlockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long position;

    public CorruptBlockException(final long position, final String problem) {
        super("block " + position + ": " + problem);
        this.position = position;
    }

    /** Log position of the rejected block, as given to {@link BlockReader#onBlock}. */
    public long position() {
        return position;
    }
}
