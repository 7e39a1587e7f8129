package io.meldb.wire.auth;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.nio.charset.StandardCharsets;

import static io.meldb.wire.FrameFormat.HEADER_LENGTH;
import static io.meldb.wire.FrameFormat.LENGTH_FIELD_LENGTH;
import static io.meldb.wire.FrameFormat.MIN_FRAME_LENGTH;

/**
 * The cluster handshake: four frames in the framing of the port's own protocol (its magic and version, see
 * {@link io.meldb.wire.FrameFormat}), exchanged before any request when the server has a cluster secret.
 *
 * <pre>
 *  client -> HELLO     0x60  client nonce (32)
 *  server -> CHALLENGE 0xE0  server nonce (32), HMAC(secret, "meldb cluster server", magic, client nonce, server nonce)
 *  client -> PROOF     0x61  HMAC(secret, "meldb cluster client", magic, server nonce, client nonce)
 *  server -> WELCOME   0xE1  -
 * </pre>
 * The client checks the server's proof before it proves anything itself, so a server without the secret learns
 * nothing from it; fresh nonces on both sides mean a recorded handshake cannot be replayed. A refusal is the
 * protocol's ERROR frame (short code, UTF-8 message), so a client that does not know about the handshake still
 * reads a clear answer to its first request.
 */
public final class ClusterAuthProtocol {
    public static final byte HELLO = 0x60;
    public static final byte PROOF = 0x61;
    public static final byte CHALLENGE = (byte) 0xE0;
    public static final byte WELCOME = (byte) 0xE1;
    public static final byte ERROR = (byte) 0xFF;

    /** Largest handshake frame a client takes (an ERROR with its message); the server's frames are smaller. */
    static final int MAX_CLIENT_SIDE_FRAME = HEADER_LENGTH + 2 + 4096;

    private ClusterAuthProtocol() {
    }

    static ByteBuf frame(ByteBufAllocator alloc, int magic, byte version, byte type, long requestId, byte[]... body) {
        int n = 0;
        for (byte[] b : body) {
            n += b.length;
        }
        ByteBuf out = alloc.buffer(HEADER_LENGTH + n);
        out.writeInt(MIN_FRAME_LENGTH + n).writeInt(magic).writeByte(version).writeByte(type).writeShort(0)
                .writeLong(requestId);
        for (byte[] b : body) {
            out.writeBytes(b);
        }
        return out;
    }

    static ByteBuf error(ByteBufAllocator alloc, int magic, byte version, long requestId, short code, String message) {
        byte[] text = message.getBytes(StandardCharsets.UTF_8);
        byte[] body = new byte[2 + Math.min(text.length, 1024)];
        body[0] = (byte) (code >>> 8);
        body[1] = (byte) code;
        System.arraycopy(text, 0, body, 2, body.length - 2);
        return frame(alloc, magic, version, ERROR, requestId, body);
    }

    /** Total bytes of the frame whose header starts {@code header} (length field included). */
    static long totalLength(ByteBuf header) {
        return LENGTH_FIELD_LENGTH + (header.getInt(header.readerIndex()) & 0xFFFFFFFFL);
    }
}
