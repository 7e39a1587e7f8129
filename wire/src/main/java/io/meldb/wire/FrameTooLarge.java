package io.meldb.wire;

/**
 * Emitted by {@link FrameDecoder} instead of a frame whose length exceeds the limit. The header was intact, so the
 * decoder skips the body and the stream stays in sync: the receiver answers that request with its protocol's
 * "too large" error (or fails it, on a client) and the connection lives on.
 */
public record FrameTooLarge(byte type, long requestId, long frameLength, int maxFrameLength) {
}
