package io.meldb.sql.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Locale;

/**
 * One kept-alive HTTP/1.1 socket of {@link MeldHttpClient}: writes a POST (header and body in one write) and reads
 * the answer (Content-Length or chunked) through a buffer it keeps, so a request allocates only its answer's body.
 */
final class HttpLink {
    private final String host;
    private final int port;
    private final int connectTimeoutMs;
    private final int responseTimeoutMs;
    private final int maxHeaderBytes;
    private Socket socket;
    private InputStream in;
    private OutputStream out;
    /** Requests answered on the current socket: a failure on a fresh socket is never retried. */
    private int answeredOnSocket;
    private byte[] outBuffer = new byte[4096];
    private final byte[] inBuffer = new byte[8192];
    private int inPos;
    private int inLimit;

    HttpLink(final String host, final int port, final int connectTimeoutMs, final int responseTimeoutMs,
             final int maxHeaderBytes) {
        this.host = host;
        this.port = port;
        this.connectTimeoutMs = connectTimeoutMs;
        this.responseTimeoutMs = responseTimeoutMs;
        this.maxHeaderBytes = maxHeaderBytes;
    }

    /** The status and body of an answer. */
    record Answer(int status, byte[] body) {
    }

    /** The socket ended before any byte of the answer: the request may be sent again on a new one. */
    static final class StaleConnection extends IOException {
        StaleConnection(final String message) {
            super(message);
        }
    }

    /** Whether this socket has answered before (a failure before the answer may then be a stale socket). */
    boolean reused() {
        return socket != null && answeredOnSocket > 0;
    }

    /** Sends {@code request} after the header {@code prefix} (which ends with "Content-Length: "). */
    Answer exchange(final byte[] prefix, final byte[] request) throws IOException {
        if (socket == null) {
            open();
        }
        try {
            writeRequest(prefix, request);
        } catch (IOException e) {
            if (answeredOnSocket > 0) {
                throw new StaleConnection("the MeldDB gateway closed the idle connection: " + e.getMessage());
            }
            throw e;
        }
        final int firstByte = readByte();
        if (firstByte < 0) {
            throw new StaleConnection("the MeldDB gateway closed the connection without answering");
        }
        inPos--; // the status line starts with it
        final Answer answer = readAnswer();
        answeredOnSocket++;
        return answer;
    }

    private void open() throws IOException {
        final Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.setKeepAlive(true);
            s.connect(new InetSocketAddress(host, port), connectTimeoutMs);
            s.setSoTimeout(responseTimeoutMs);
            this.in = s.getInputStream();
            this.out = s.getOutputStream();
        } catch (IOException e) {
            s.close();
            throw e;
        }
        this.socket = s;
        this.answeredOnSocket = 0;
        this.inPos = 0;
        this.inLimit = 0;
    }

    private void writeRequest(final byte[] prefix, final byte[] body) throws IOException {
        final int max = prefix.length + 24 + body.length;
        if (outBuffer.length < max) {
            outBuffer = new byte[Math.max(max, outBuffer.length * 2)];
        }
        final byte[] b = outBuffer;
        System.arraycopy(prefix, 0, b, 0, prefix.length);
        int n = prefix.length;
        n = putDecimal(b, n, body.length);
        b[n++] = '\r';
        b[n++] = '\n';
        b[n++] = '\r';
        b[n++] = '\n';
        System.arraycopy(body, 0, b, n, body.length);
        out.write(b, 0, n + body.length);
        out.flush();
    }

    private static int putDecimal(final byte[] b, final int at, final int value) {
        final int digits = value == 0 ? 1 : (int) Math.log10(value) + 1;
        int v = value;
        for (int i = at + digits - 1; i >= at; i--) {
            b[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        return at + digits;
    }

    private Answer readAnswer() throws IOException {
        final String statusLine = readLine();
        if (statusLine.length() < 12 || !statusLine.startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP answer from the MeldDB gateway: " + abbreviate(statusLine));
        }
        final int status = parseStatus(statusLine);
        long length = -1;
        boolean chunked = false;
        boolean close = statusLine.startsWith("HTTP/1.0");
        int headerBytes = statusLine.length();
        for (String line = readLine(); !line.isEmpty(); line = readLine()) {
            headerBytes += line.length();
            if (headerBytes > maxHeaderBytes) {
                throw new IOException("the MeldDB gateway's answer has more than " + maxHeaderBytes
                        + " bytes of headers");
            }
            final int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            final String value = line.substring(colon + 1).trim();
            if (line.regionMatches(true, 0, "Content-Length", 0, colon) && colon == 14) {
                length = Long.parseLong(value);
            } else if (line.regionMatches(true, 0, "Transfer-Encoding", 0, colon) && colon == 17) {
                chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
            } else if (line.regionMatches(true, 0, "Connection", 0, colon) && colon == 10) {
                close = value.equalsIgnoreCase("close");
            }
        }
        final byte[] body;
        if (chunked) {
            body = readChunked();
        } else if (length >= 0) {
            if (length > Integer.MAX_VALUE - 8) {
                throw new IOException("an answer of " + length + " bytes is too large");
            }
            body = readExactly((int) length);
        } else {
            close = true; // the body runs to the end of the connection
            body = readToEnd();
        }
        if (close) {
            close();
        }
        return new Answer(status, body);
    }

    private static int parseStatus(final String statusLine) throws IOException {
        try {
            return Integer.parseInt(statusLine.substring(9, 12));
        } catch (NumberFormatException e) {
            throw new IOException("not an HTTP status line: " + abbreviate(statusLine));
        }
    }

    private byte[] readChunked() throws IOException {
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            final String line = readLine();
            final int semi = line.indexOf(';');
            final int size;
            try {
                size = Integer.parseInt((semi < 0 ? line : line.substring(0, semi)).trim(), 16);
            } catch (NumberFormatException e) {
                throw new IOException("bad chunk size in the gateway's answer: " + abbreviate(line));
            }
            if (size == 0) {
                while (!readLine().isEmpty()) {
                    // trailers: none expected, skipped
                }
                return body.toByteArray();
            }
            body.write(readExactly(size));
            readLine(); // the CRLF after the chunk
        }
    }

    private byte[] readExactly(final int length) throws IOException {
        final byte[] body = new byte[length];
        final int buffered = Math.min(length, inLimit - inPos);
        System.arraycopy(inBuffer, inPos, body, 0, buffered);
        inPos += buffered;
        int n = buffered;
        while (n < length) {
            final int r = in.read(body, n, length - n);
            if (r < 0) {
                throw new IOException("the MeldDB gateway closed the connection " + n + " bytes into an answer of "
                        + length);
            }
            n += r;
        }
        return body;
    }

    private byte[] readToEnd() throws IOException {
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(inBuffer, inPos, inLimit - inPos);
        inPos = inLimit;
        in.transferTo(body);
        return body.toByteArray();
    }

    /** The next byte, or -1 at the end of the stream (a reset before any byte counts as that end). */
    private int readByte() throws IOException {
        if (inPos == inLimit) {
            final int r;
            try {
                r = in.read(inBuffer, 0, inBuffer.length);
            } catch (java.net.SocketException e) {
                if (answeredOnSocket > 0) {
                    return -1;
                }
                throw e;
            }
            if (r <= 0) {
                return -1;
            }
            inPos = 0;
            inLimit = r;
        }
        return inBuffer[inPos++] & 0xff;
    }

    private String readLine() throws IOException {
        final StringBuilder line = new StringBuilder(64);
        while (true) {
            final int b = readByte();
            if (b < 0) {
                throw new IOException("the MeldDB gateway closed the connection in the middle of an answer");
            }
            if (b == '\n') {
                final int end = line.length();
                if (end > 0 && line.charAt(end - 1) == '\r') {
                    line.setLength(end - 1);
                }
                return line.toString();
            }
            if (line.length() >= maxHeaderBytes) {
                throw new IOException("a header line of the gateway's answer is longer than " + maxHeaderBytes);
            }
            line.append((char) b);
        }
    }

    private static String abbreviate(final String s) {
        return s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }

    /** Closes the socket; the next request opens a new one. */
    void close() {
        final Socket s = socket;
        socket = null;
        in = null;
        out = null;
        inPos = 0;
        inLimit = 0;
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing what is already broken
            }
        }
    }
}
