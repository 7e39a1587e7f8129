package io.meldb.log.protocol;

/**
 * (Log protocol, Hyder II §5.1.) Emitted by {@link LogFrameDecoder} instead of a frame whose length exceeds the limit. The header was intact, so
 * the decoder skips the body and the stream stays in sync: the handler answers
 * {@link io.meldb.log.ErrorCode#FRAME_TOO_LARGE} to that request and the connection lives on.
 */
public record LogFrameTooLarge(byte type, long requestId, long frameLength, int maxFrameLength) {
}
