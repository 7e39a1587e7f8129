package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.server.SqlSession;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One COPY FROM STDIN in progress: CopyData is cut into rows ({@link PgCopy}), their fields read as the target
 * columns' types, and the rows inserted in batches. Outside a transaction block each batch commits on its own,
 * so a load of any size fits the limit on what one transaction may write; a failure keeps the batches already
 * committed (as CockroachDB's COPY does, unlike PostgreSQL's, which is one transaction). Inside BEGIN ... COMMIT
 * the whole COPY is part of the transaction.
 */
final class PgCopyIn {
    /** Rows per batch, and so per transaction outside a block. */
    static final int BATCH_ROWS = 5_000;

    private final PgCopy copy;
    private final SqlSession.CopyTarget target;
    private final SqlSession session;
    private final PgTransactionBlock block;
    private final List<Object[]> batch = new ArrayList<>();
    private long rows;
    private boolean failed;

    PgCopyIn(final PgCopy copy, final SqlSession.CopyTarget target, final SqlSession session,
             final PgTransactionBlock block) {
        this.copy = copy;
        this.target = target;
        this.session = session;
        this.block = block;
    }

    int columnCount() {
        return target.columns().length;
    }

    boolean failed() {
        return failed;
    }

    /** After an error the rest of the data is read and dropped until CopyDone or CopyFail. */
    void fail() {
        failed = true;
        batch.clear();
    }

    void data(final ByteBuf bytes) {
        if (failed) {
            return;
        }
        add(copy.feed(bytes.toString(StandardCharsets.UTF_8)));
    }

    /** CopyDone: inserts what is left; answers the number of rows copied. */
    long done() {
        if (failed) {
            throw new SqlStateException("57014", "COPY failed");
        }
        add(copy.finish());
        flush();
        if (!block.explicit()) {
            block.endImplicit();
        }
        return rows;
    }

    private void add(final List<String[]> fieldsOfRows) {
        final int[] types = target.jdbcTypes();
        for (String[] fields : fieldsOfRows) {
            if (fields.length != types.length) {
                throw new SqlStateException("22P04", (fields.length > types.length ? "extra data after last "
                        + "expected column" : "missing data for column " + (fields.length + 1)) + " in line "
                        + (rows + batch.size() + 1));
            }
            final Object[] values = new Object[types.length];
            for (int i = 0; i < types.length; i++) {
                values[i] = fields[i] == null ? null : PgParameters.convertText(fields[i], types[i]);
            }
            batch.add(values);
            if (batch.size() >= BATCH_ROWS) {
                flush();
            }
        }
    }

    private void flush() {
        if (batch.isEmpty()) {
            return;
        }
        block.beforeStatement(true);
        rows += session.insertRows(target, batch);
        batch.clear();
        if (!block.explicit()) {
            block.endImplicit();
        }
    }
}
