package io.meldb.txn.protocol;

import io.meldb.wire.FrameFormat;
import io.meldb.txn.api.TxnOutcome;

/**
 * The transaction RPC: its magic and version, and the body of every frame type. Frames have the log protocol's
 * framing, drawn in {@link FrameFormat} (length, magic, version, type, reserved, request id, body), with the magic
 * "MTXN"; {@link #FORMAT} builds their codec.
 *
 * <p>All integers are big-endian. {@code bytes} is an int length followed by that many bytes, length -1 meaning
 * null (an absent value, an unbounded scan end); {@code handle} is a long naming a transaction the server opened
 * on this connection (handles are per connection, never reused on it). Answers carry the request id of the request
 * they answer; a connection may have any number of requests in flight and answers may come back in any order.
 *
 * <table>
 *   <caption>Frame types and bodies</caption>
 *   <tr><th>request</th><th>body</th><th>answer</th><th>body</th></tr>
 *   <tr><td>BEGIN 0x01</td><td>byte isolation, byte readOnly[, byte restarts]</td><td>BEGUN 0x81</td>
 *       <td>long handle, long incarnation, long sequence, long snapshotCsn, byte isolation, byte readOnly</td></tr>
 *   <tr><td>GET 0x02</td><td>long handle, bytes key</td><td>VALUE 0x82</td><td>bytes value (-1: absent)</td></tr>
 *   <tr><td>SCAN 0x03</td><td>long handle, byte flags, int limit, bytes lo, bytes hi</td><td>ENTRIES 0x83</td>
 *       <td>int count, count &times; (bytes key, bytes value)</td></tr>
 *   <tr><td>PUT 0x04</td><td>long handle, bytes key, bytes value</td><td>DONE 0x84</td><td>-</td></tr>
 *   <tr><td>DELETE 0x05</td><td>long handle, bytes key</td><td>DONE 0x84</td><td>-</td></tr>
 *   <tr><td>COMMIT 0x06</td><td>long handle</td><td>COMMITTED 0x86</td><td>long csn</td></tr>
 *   <tr><td>ABORT 0x07</td><td>long handle</td><td>DONE 0x84</td><td>-</td></tr>
 *   <tr><td>OUTCOME 0x08</td><td>long incarnation, long sequence[, int waitMillis]</td><td>OUTCOME_IS 0x88</td>
 *       <td>long incarnation, long sequence, byte state, long csn, bytes reason (UTF-8)</td></tr>
 *   <tr><td>STATUS 0x09</td><td>-</td><td>STATUS_IS 0x89</td>
 *       <td>int serverId, long incarnation, long csn, long stateHash, int inFlight</td></tr>
 *   <tr><td>DEPEND 0x0A</td><td>long handle, byte flags, bytes lo, bytes hi</td><td>DONE 0x84</td><td>-</td></tr>
 *   <tr><td>ADD 0x0B</td><td>long handle, bytes key, int offset, byte width, byte flags, long delta, long min,
 *       long max</td><td>DONE 0x84</td><td>-</td></tr>
 *   <tr><td>any</td><td></td><td>ERROR 0xFF</td><td>short {@link io.meldb.txn.api.TxnError} code, UTF-8 message</td></tr>
 * </table>
 * BEGIN's optional restarts (unsigned, 0 if absent) says how many times the client already retried this
 * transaction after an abort; it goes into the intention for the reorder window's tail-latency policy.
 * OUTCOME with waitMillis &gt; 0 waits up to that long (at most {@link #MAX_OUTCOME_WAIT_MILLIS}) for a definite
 * outcome, fencing off the transaction's server if need be (TxnService.awaitOutcome); without it, it answers at once.
 * SCAN flags: bit 0 lo inclusive, bit 1 hi inclusive, bit 2 descending; DEPEND flags: bits 0 and 1 as SCAN's
 * (TxnSession.dependOn); ADD flags: bit 0 presence byte (TxnSession.add, io.meldb.core.IntField). ABORT of a handle that is not open answers
 * DONE (abort is idempotent); every other request naming an unknown handle answers UNKNOWN_TRANSACTION. A
 * COMMIT ends the handle when it arrives, whatever its outcome. A malformed body answers BAD_REQUEST and the
 * connection goes on; a frame above the receiver's size limit answers TOO_LARGE and is skipped; a broken stream
 * (bad magic, version or length) answers ERROR with request id 0 and is closed.
 */
public final class TxnRpcProtocol {
    public static final int MAGIC = 0x4D54584E;
    /**
     * A commit waits for its decision 1 ms longer per this many bytes of intention (10 MB/s, what a small machine
     * encodes, logs, decodes and melds with room to spare): the server's commit timeout and the client's request
     * timeout both stretch by it, so a large commit is not given up on by one side only.
     */
    public static final int COMMIT_BYTES_PER_EXTRA_MILLI = 10_000;
    public static final byte VERSION = 1;
    /** The transaction RPC's frames and codec. */
    public static final FrameFormat<TxnFrame> FORMAT =
            new FrameFormat<>("the transaction RPC", MAGIC, VERSION, TxnFrame.class, TxnFrame::new);

    /** Longest wait an OUTCOME may ask for. */
    public static final int MAX_OUTCOME_WAIT_MILLIS = 60_000;

    /** Largest ERROR message sent (longer ones are cut). */
    public static final int MAX_ERROR_MESSAGE = 2048;

    public static final byte BEGIN = 0x01;
    public static final byte GET = 0x02;
    public static final byte SCAN = 0x03;
    public static final byte PUT = 0x04;
    public static final byte DELETE = 0x05;
    public static final byte COMMIT = 0x06;
    public static final byte ABORT = 0x07;
    public static final byte OUTCOME = 0x08;
    public static final byte STATUS = 0x09;
    public static final byte DEPEND = 0x0A;
    public static final byte ADD = 0x0B;
    /** ADD flags: bit 0, the field has a presence byte before it ({@link io.meldb.core.IntField#presenceByte}). */
    public static final int ADD_PRESENCE_BYTE = 1;

    public static final byte BEGUN = (byte) 0x81;
    public static final byte VALUE = (byte) 0x82;
    public static final byte ENTRIES = (byte) 0x83;
    public static final byte DONE = (byte) 0x84;
    public static final byte COMMITTED = (byte) 0x86;
    public static final byte OUTCOME_IS = (byte) 0x88;
    public static final byte STATUS_IS = (byte) 0x89;
    public static final byte ERROR = (byte) 0xFF;

    public static final int SCAN_LO_INCLUSIVE = 1;
    public static final int SCAN_HI_INCLUSIVE = 2;
    public static final int SCAN_DESCENDING = 4;

    /** Request types are 1..{@link #MAX_REQUEST_TYPE}. */
    public static final int MAX_REQUEST_TYPE = ADD;

    private TxnRpcProtocol() {
    }

    public static boolean isRequest(byte type) {
        return type >= BEGIN && type <= MAX_REQUEST_TYPE;
    }

    public static String typeName(byte type) {
        return switch (type) {
            case BEGIN -> "BEGIN";
            case GET -> "GET";
            case SCAN -> "SCAN";
            case PUT -> "PUT";
            case DELETE -> "DELETE";
            case COMMIT -> "COMMIT";
            case ABORT -> "ABORT";
            case OUTCOME -> "OUTCOME";
            case STATUS -> "STATUS";
            case DEPEND -> "DEPEND";
            case ADD -> "ADD";
            case BEGUN -> "BEGUN";
            case VALUE -> "VALUE";
            case ENTRIES -> "ENTRIES";
            case DONE -> "DONE";
            case COMMITTED -> "COMMITTED";
            case OUTCOME_IS -> "OUTCOME_IS";
            case STATUS_IS -> "STATUS_IS";
            case ERROR -> "ERROR";
            default -> String.format("0x%02X", type & 0xFF);
        };
    }

    /** Wire code of an outcome state (fixed here, not the enum's ordinal, so reordering the enum cannot change it). */
    public static byte stateCode(TxnOutcome.State state) {
        return switch (state) {
            case COMMITTED -> 1;
            case ABORTED -> 2;
            case NOT_COMMITTED -> 3;
            case PENDING -> 4;
            case UNKNOWN -> 5;
        };
    }

    /** @throws IllegalArgumentException for a code no state has */
    public static TxnOutcome.State stateOf(int code) {
        return switch (code) {
            case 1 -> TxnOutcome.State.COMMITTED;
            case 2 -> TxnOutcome.State.ABORTED;
            case 3 -> TxnOutcome.State.NOT_COMMITTED;
            case 4 -> TxnOutcome.State.PENDING;
            case 5 -> TxnOutcome.State.UNKNOWN;
            default -> throw new IllegalArgumentException("unknown outcome state code " + code);
        };
    }
}
