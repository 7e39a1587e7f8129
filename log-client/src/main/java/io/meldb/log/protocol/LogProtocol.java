package io.meldb.log.protocol;

import io.meldb.wire.Frame;
import io.meldb.wire.FrameFormat;
import static io.meldb.wire.FrameFormat.MIN_FRAME_LENGTH;

/**
 * The log protocol: its magic and version, and the body of every frame type: Hyder II §5.1's append and read, plus
 * tail, trim (meld paper App. B), create (the cluster configuration block) and subscribe (the log reader's feed).
 *
 * <p>Frames have the shared layout drawn in {@link FrameFormat} (length, magic, version, type, reserved, request id,
 * body) with the magic "MLOG"; {@link #FORMAT} builds their codec. All integers are big-endian (network order). Responses carry the request id of the request they answer, so a
 * connection can have any number of requests in flight and answers may come back in any order; every PUSH of a
 * subscription carries the SUBSCRIBE's id.
 *
 * <table>
 *   <caption>Frame types and bodies</caption>
 *   <tr><th>request</th><th>body</th><th>answer</th><th>body</th></tr>
 *   <tr><td>CREATE 0x01</td><td>int blockSize, int configLength, config</td><td>CREATED 0x81</td><td>int blockSize, log id (16)</td></tr>
 *   <tr><td>APPEND 0x02</td><td>the block (exactly blockSize bytes)</td><td>APPENDED 0x82</td><td>long position</td></tr>
 *   <tr><td>READ 0x03</td><td>long position, int count</td><td>BLOCKS 0x83</td><td>long position, int count, int blockSize, blocks</td></tr>
 *   <tr><td>TAIL 0x04</td><td>-</td><td>TAIL_IS 0x84</td><td>long tail, long trimPoint, int blockSize, log id (16)</td></tr>
 *   <tr><td>TRIM 0x05</td><td>long position</td><td>TRIMMED_TO 0x85</td><td>long trimPoint</td></tr>
 *   <tr><td>SUBSCRIBE 0x06</td><td>long from</td><td>PUSH 0x86, repeatedly</td><td>long position, the block</td></tr>
 *   <tr><td>UNSUBSCRIBE 0x07</td><td>long subscribeRequestId</td><td>UNSUBSCRIBED 0x87</td><td>-</td></tr>
 *   <tr><td>any</td><td></td><td>ERROR 0xFF</td><td>short code, UTF-8 message</td></tr>
 * </table>
 * The log id is drawn at random when the log is created (zeros before); a client checks it whenever it reconnects,
 * so that it never appends to or reads from another log that a restarted server now holds. Servers before it sent
 * CREATED and TAIL_IS without one; clients accept the shorter answers.
 * READ answers at most {@link #MAX_READ_BYTES} of blocks and never past the tail: fewer blocks than asked for is
 * normal, the reader asks again from where the answer ended.
 */
public final class LogProtocol {
    public static final int MAGIC = 0x4D4C4F47;
    public static final byte VERSION = 1;
    /** The log protocol's frames and codec. */
    public static final FrameFormat<LogFrame> FORMAT =
            new FrameFormat<>("the log protocol", MAGIC, VERSION, LogFrame.class, LogFrame::new);

    /** Upper bound of the blocks in one BLOCKS answer. */
    public static final int MAX_READ_BYTES = 4 << 20;
    /** Largest ERROR message sent (longer ones are cut). */
    public static final int MAX_ERROR_MESSAGE = 1024;

    public static final byte CREATE = 0x01;
    public static final byte APPEND = 0x02;
    public static final byte READ = 0x03;
    public static final byte TAIL = 0x04;
    public static final byte TRIM = 0x05;
    public static final byte SUBSCRIBE = 0x06;
    public static final byte UNSUBSCRIBE = 0x07;

    public static final byte CREATED = (byte) 0x81;
    public static final byte APPENDED = (byte) 0x82;
    public static final byte BLOCKS = (byte) 0x83;
    public static final byte TAIL_IS = (byte) 0x84;
    public static final byte TRIMMED_TO = (byte) 0x85;
    public static final byte PUSH = (byte) 0x86;
    public static final byte UNSUBSCRIBED = (byte) 0x87;
    public static final byte ERROR = (byte) 0xFF;

    private LogProtocol() {
    }

    /** Largest frame a server with this block size accepts: an APPEND, or a CREATE whose config fills a block. */
    public static int maxRequestFrameLength(int blockSize) {
        return MIN_FRAME_LENGTH + 8 + blockSize;
    }

    /** Largest frame a client accepts: a BLOCKS answer of {@link #MAX_READ_BYTES}, or one block if it is bigger. */
    public static int maxResponseFrameLength(int maxBlockSize) {
        return MIN_FRAME_LENGTH + 16 + Math.max(MAX_READ_BYTES, maxBlockSize);
    }

    /** Blocks one READ answers at most. */
    public static int maxReadCount(int blockSize) {
        return Math.max(1, MAX_READ_BYTES / blockSize);
    }

    public static String typeName(byte type) {
        return switch (type) {
            case CREATE -> "CREATE";
            case APPEND -> "APPEND";
            case READ -> "READ";
            case TAIL -> "TAIL";
            case TRIM -> "TRIM";
            case SUBSCRIBE -> "SUBSCRIBE";
            case UNSUBSCRIBE -> "UNSUBSCRIBE";
            case CREATED -> "CREATED";
            case APPENDED -> "APPENDED";
            case BLOCKS -> "BLOCKS";
            case TAIL_IS -> "TAIL_IS";
            case TRIMMED_TO -> "TRIMMED_TO";
            case PUSH -> "PUSH";
            case UNSUBSCRIBED -> "UNSUBSCRIBED";
            case ERROR -> "ERROR";
            default -> String.format("0x%02X", type & 0xFF);
        };
    }
}
