package io.meldb.sql.pg;

import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Lifts the integer literals of a simple Query's statement into parameters, so that statements which differ only in
 * those values share one shape, and so one plan in the session's plan cache (keyed by SQL text): a client in the
 * simple query protocol (psql scripts, pgbench -M simple, drivers that interpolate values) otherwise sends new SQL
 * text for every statement, and each one was parsed, validated and planned by Calcite again.
 *
 * <p>Only where a parameter means what the literal meant: an integer (digits only, optionally negated) right after a
 * comparison or {@code + - *} operator, or a whole item of an INSERT's VALUES rows. Never in LIMIT/OFFSET, ORDER
 * BY positions, type precisions, function arguments, IN lists, or anything not an integer. {@link PgLiteralShapes}
 * then accepts the shape only if every parameter is typed INTEGER or BIGINT by the statement (as the literal would
 * have been), and falls back to the original text on anything else.
 */
final class PgLiteralLifter {
    /** The statement's shape, with $1..$n where the literals were, and the literals' text in order. */
    record Lifted(String shape, List<String> literals) {
    }

    private PgLiteralLifter() {
    }

    /** The lifted form of {@code sql}, or null when it has no literal to lift ({@link PgShapeScanner} reads it). */
    static Lifted lift(final String sql) {
        final byte[] bytes = sql.getBytes(StandardCharsets.UTF_8);
        final PgShapeScanner scanner = new PgShapeScanner();
        if (scanner.scan(Unpooled.wrappedBuffer(bytes), 0, bytes.length, false) != PgShapeScanner.LIFTED) {
            return null;
        }
        final List<String> literals = new ArrayList<>(scanner.count());
        for (int i = 0; i < scanner.count(); i++) {
            literals.add(Long.toString(scanner.values()[i]));
        }
        return new Lifted(new String(scanner.shape(), 0, scanner.shapeLength(), StandardCharsets.UTF_8),
                List.copyOf(literals));
    }
}
