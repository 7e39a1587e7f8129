package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.fast.ParameterValues;
import io.meldb.sql.server.RowCursor;
import io.meldb.sql.server.SqlSession;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;

/**
 * {@code COPY table [(columns)] TO STDOUT} and {@code COPY (query) TO STDOUT} (PostgreSQL docs, "COPY" and
 * "Message Flow: COPY Operations"): runs the table's SELECT or the query in the statement's transaction and sends
 * CopyOutResponse, one CopyData per row in the text or CSV format of the statement's options (with a header line
 * when asked), CopyDone and "COPY n". Values are written as the text format of a DataRow writes them; the text
 * format escapes backslash, newline, carriage return, tab and the delimiter, CSV quotes a value that holds the
 * delimiter, the quote, a line break or is empty (NULL is the unquoted null string). psql's {@code \copy ... to},
 * pgjdbc's {@code CopyManager.copyOut} and pg_dump's data read it.
 */
final class PgCopyOut {
    private static final int FLUSH_BYTES = 64 * 1024;

    private final PgContext context;
    private final PgPreparer preparer;
    private final PgOutput output;
    /** One value's text-format field ({@link PgValues#writeValue}), reused per value. */
    private final ByteBuf field = Unpooled.buffer(64);
    private final StringBuilder line = new StringBuilder(128);

    PgCopyOut(final PgContext context, final PgPreparer preparer) {
        this.context = context;
        this.preparer = preparer;
        this.output = context.output;
    }

    void run(final PgCopy copy) {
        final String select = copy.query != null ? copy.query : "SELECT "
                + (copy.columns.isEmpty() ? "*" : String.join(", ", copy.columns.stream().map(PgCopyOut::quote)
                .toList())) + " FROM " + (copy.schema != null ? quote(copy.schema) + "." : "") + quote(copy.table);
        final ScheduledFuture<?> timer = context.startStatementTimer();
        try (PgStatement statement = preparer.prepareTimed(select, new int[0])) {
            if (statement.prepared == null || statement.columns.size() == 0) {
                throw new SqlStateException("0A000", "COPY (query) TO STDOUT takes a query that returns rows");
            }
            context.block.beforeStatement(statement.writes());
            final SqlSession.Result result = context.session.execute(statement.prepared, new ParameterValues());
            try {
                final RowCursor rows = result.rows();
                if (rows == null) {
                    throw new SqlStateException("0A000", "COPY (query) TO STDOUT takes a query that returns rows");
                }
                send(copy, statement.columns, rows);
            } finally {
                context.session.closeResult(result);
            }
        } finally {
            PgContext.stop(timer);
        }
    }

    private void send(final PgCopy copy, final PgColumns columns, final RowCursor rows) {
        final int n = columns.size();
        PgBackend.copyOutResponse(output.buffer(), n);
        if (copy.header) {
            line.setLength(0);
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    line.append(copy.delimiter);
                }
                appendField(copy, columns.name(i));
            }
            PgBackend.copyData(output.buffer(), line.append('\n'));
        }
        final java.time.ZoneId zone = PgSessionZone.of(context.settings.get("TimeZone"));
        long count = 0;
        while (rows.next()) {
            line.setLength(0);
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    line.append(copy.delimiter);
                }
                final Object v = rows.value(i);
                if (v == null) {
                    line.append(copy.nullText);
                } else {
                    field.clear();
                    PgValues.writeValue(field, columns.type(i), v, false, zone);
                    appendField(copy, field.toString(Integer.BYTES, field.readableBytes() - Integer.BYTES,
                            StandardCharsets.UTF_8));
                }
            }
            final ByteBuf out = output.buffer();
            PgBackend.copyData(out, line.append('\n'));
            count++;
            if (out.readableBytes() >= FLUSH_BYTES) {
                output.flushAndAwaitWritable();
            }
            if (context.cancelRequested) {
                throw new SqlStateException("57014", "canceling statement due to user request");
            }
        }
        PgBackend.copyDone(output.buffer());
        PgBackend.commandComplete(output.buffer(), "COPY " + count);
    }

    private void appendField(final PgCopy copy, final String value) {
        if (copy.csv) {
            boolean quoted = value.isEmpty() || value.equals(copy.nullText);
            for (int i = 0; i < value.length() && !quoted; i++) {
                final char c = value.charAt(i);
                quoted = c == copy.delimiter || c == copy.quote || c == '\n' || c == '\r';
            }
            if (!quoted) {
                line.append(value);
                return;
            }
            line.append(copy.quote);
            for (int i = 0; i < value.length(); i++) {
                final char c = value.charAt(i);
                if (c == copy.quote || c == copy.escape) {
                    line.append(copy.escape);
                }
                line.append(c);
            }
            line.append(copy.quote);
            return;
        }
        for (int i = 0; i < value.length(); i++) {
            final char c = value.charAt(i);
            switch (c) {
                case '\\' -> line.append("\\\\");
                case '\n' -> line.append("\\n");
                case '\r' -> line.append("\\r");
                case '\t' -> line.append("\\t");
                default -> {
                    if (c == copy.delimiter) {
                        line.append('\\');
                    }
                    line.append(c);
                }
            }
        }
    }

    private static String quote(final String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }
}
