package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.server.RowCursor;
import io.netty.buffer.ByteBuf;

import java.time.ZoneId;

/**
 * Writes result rows as DataRow messages (PostgreSQL docs, "Message Formats"), for a portal's Execute and a
 * cursor's FETCH alike: each value in its column's type and the format the client asked for, straight from the
 * cursor into the outbound buffer (integers unboxed, {@link PgValues#writeLong}); the buffer goes out once large,
 * so that a large result streams, and a cancel (or statement_timeout) stops the rows with 57014.
 */
final class PgRowWriter {
    /** Answers are written out once this many bytes have collected, so a large result streams. */
    private static final int FLUSH_BYTES = 64 * 1024;

    private final PgContext context;
    private final PgOutput output;
    /** The TimeZone setting {@link #zone} was made from. */
    private String zoneSetting;
    private ZoneId zone = java.time.ZoneOffset.UTC;

    PgRowWriter(final PgContext context) {
        this.context = context;
        this.output = context.output;
    }

    /** Writes the current row of {@code rows} as a DataRow of {@code columns} in {@code formats}. */
    void write(final PgColumns columns, final short[] formats, final RowCursor rows, final ZoneId sessionZone) {
        final int n = columns.size();
        final ByteBuf out = output.buffer();
        final int at = PgBackend.begin(out, 'D');
        try {
            out.writeShort(n);
            for (int i = 0; i < n; i++) {
                final boolean binary = PgBackend.format(formats, i) == 1;
                if (!PgValues.writeLong(out, columns.type(i), rows, i, binary)
                        && !PgValues.writeUtf8(out, columns.type(i), rows, i)) {
                    PgValues.writeValue(out, columns.type(i), rows.value(i), binary, sessionZone);
                }
            }
        } catch (RuntimeException | Error e) {
            out.writerIndex(at - 1); // no half DataRow before the ErrorResponse: the client would lose sync
            throw e;
        }
        PgBackend.end(out, at);
        if (out.readableBytes() >= FLUSH_BYTES) {
            output.flushAndAwaitWritable();
        }
        if (context.cancelRequested) {
            throw new SqlStateException("57014", "canceling statement due to user request");
        }
    }

    /** The session's TimeZone as a zone, made again only when the setting changed. */
    ZoneId sessionZone() {
        final String setting = context.settings.get("TimeZone");
        if (!java.util.Objects.equals(setting, zoneSetting)) {
            zone = PgSessionZone.of(setting);
            zoneSetting = setting;
        }
        return zone;
    }
}
