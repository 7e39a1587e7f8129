package io.meldb.log;

/**
 * Every error the log service (Hyder II §5.1; TRIMMED is meld paper App. B's trim) can answer with. The numeric code travels in ERROR frames
 * (see {@code io.meldb.log.protocol.LogProtocol}), so codes are stable: never renumber, only add.
 *
 * <p>Errors are answers, not dropped connections (issue 3): only {@link #isFatal() fatal} ones, where the byte
 * stream itself can no longer be trusted, close the connection after the error frame is sent.
 */
public enum ErrorCode {
    /** The frame did not start with the protocol magic: garbage on the socket. Fatal. */
    BAD_MAGIC(1, true),
    /** The frame carries a protocol version this server does not speak. Fatal. */
    BAD_VERSION(2, true),
    /** The frame is longer than any valid request; its bytes were skipped. */
    FRAME_TOO_LARGE(3, false),
    /** The frame's body does not have the layout its type requires (e.g. a READ without a count). */
    MALFORMED_REQUEST(4, false),
    /** The frame type is not a request this server knows. */
    UNKNOWN_REQUEST(5, false),
    /** An appended block is not exactly the log's block size (oversized or undersized). */
    BLOCK_SIZE(6, false),
    /** The log has not been created yet: CREATE must come first. */
    NOT_CREATED(7, false),
    /** CREATE with a block size or configuration different from the existing log's. */
    CREATE_MISMATCH(8, false),
    /** READ (or TRIM) at or beyond the tail: that position has not been written. */
    PAST_TAIL(9, false),
    /** The position was released by TRIM. */
    TRIMMED(10, false),
    /** A stored block failed its checksum or is not the position it should be: the log's storage is damaged. */
    CORRUPT_BLOCK(11, false),
    /**
     * The storage failed (an I/O error, or a write that hit a full disk before the free-space reserve caught it); the
     * server stops accepting appends until restarted.
     */
    STORAGE_FAILURE(12, false),
    /** An argument is out of range (count &lt;= 0, negative position, block size out of bounds). */
    BAD_ARGUMENT(13, false),
    /** The server is shutting down; the request was not carried out. */
    SHUTTING_DOWN(14, false),
    /** The frame length field is impossible (shorter than the header): garbage on the socket. Fatal. */
    BAD_FRAME(15, true),
    /**
     * The disk holding the log has less free space than the server keeps in reserve: nothing was appended. Appends
     * are accepted again as soon as space is freed (by TRIM or by the operator); no restart is needed.
     */
    STORAGE_FULL(16, false),
    /**
     * The connection did not prove the cluster secret the server requires (none, a wrong one, or a handshake that
     * broke or took too long). Fatal: the connection is closed after it.
     */
    UNAUTHENTICATED(17, true),
    /**
     * TRIM above the resume position of the newest complete checkpoint in the log: a server recovering after it would
     * find no checkpoint to start from. Nothing was trimmed.
     */
    TRIM_REFUSED(18, false),
    /**
     * A replicated log (issue 22): this replica is not the leader and proposed nothing; the message ends with
     * {@code leader at host:port} when it knows the leader's log address, {@code leader unknown} otherwise. Reads
     * are served by any replica; APPEND, CREATE and TRIM go to the leader.
     */
    NOT_LEADER(19, false),
    /**
     * A replicated log: the append was proposed but not known to be committed (the leader stepped down, or no majority
     * acknowledged it within the replication commit timeout). It may still be in the log, at one position only:
     * resolve it by reading the log after appending something new (a txn-server's re-fence does).
     */
    OUTCOME_UNKNOWN(20, false),
    /** A code this version does not know (sent by a newer peer). */
    UNKNOWN(-1, false);

    private static final ErrorCode[] BY_CODE = new ErrorCode[21];

    static {
        for (ErrorCode c : values()) {
            if (c.code > 0) {
                BY_CODE[c.code] = c;
            }
        }
    }

    private final short code;
    private final boolean fatal;

    ErrorCode(int code, boolean fatal) {
        this.code = (short) code;
        this.fatal = fatal;
    }

    public short code() {
        return code;
    }

    /** True when the connection is closed after this error is sent, because the stream cannot be resynchronised. */
    public boolean isFatal() {
        return fatal;
    }

    public static ErrorCode fromCode(int code) {
        return code > 0 && code < BY_CODE.length && BY_CODE[code] != null ? BY_CODE[code] : UNKNOWN;
    }
}
