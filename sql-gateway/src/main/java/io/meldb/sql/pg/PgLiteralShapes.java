package io.meldb.sql.pg;

import io.meldb.sql.fast.ParameterValues;
import io.meldb.sql.pg.catalog.PgMetaQueries;
import io.meldb.sql.server.StatementKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Types;
import java.util.HashSet;
import java.util.Set;

/**
 * Prepares a simple Query's statement by its shape ({@link PgLiteralLifter}): the integer literals become
 * parameters bound to their values, so the session's plan cache answers every statement of that shape after the
 * first with the plan it already has (and the fast path runs it, as for a prepared statement). Accepted only when
 * every lifted value lands in an INTEGER or BIGINT parameter and fits it, which is the type the literal had;
 * anything else (a SMALLINT or DECIMAL column, a value out of range, a shape the planner cannot type) runs the
 * original text, as before, so both paths answer alike. Shapes the planner refused are remembered (a few hundred)
 * so they are not planned twice.
 */
final class PgLiteralShapes {
    private static final Logger LOG = LoggerFactory.getLogger(PgLiteralShapes.class);
    private static final int MAX_REFUSED = 256;

    /** A statement prepared by its shape and the values its parameters take. */
    record Bound(PgStatement statement, ParameterValues values) {
    }

    private final PgPreparer preparer;
    private final Set<String> refused = new HashSet<>();

    PgLiteralShapes(final PgPreparer preparer) {
        this.preparer = preparer;
    }

    /** {@code sql} prepared by its shape, or null to prepare it as it is. */
    Bound prepare(final String sql) {
        final StatementKind kind = StatementKind.of(sql);
        if (kind != StatementKind.READ && kind != StatementKind.WRITE || PgCommand.parse(sql) != null
                || io.meldb.sql.catalog.SqlLexer.firstKeyword(sql).equals("EXPLAIN")
                || PgMetaQueries.recognize(sql) != null) {
            return null;
        }
        final PgLiteralLifter.Lifted lifted = PgLiteralLifter.lift(sql);
        if (lifted == null || refused.contains(lifted.shape())) {
            return null;
        }
        final int n = lifted.literals().size();
        final PgStatement statement;
        try {
            statement = preparer.prepareTimed(lifted.shape(), new int[n]);
        } catch (RuntimeException e) {
            refuse(lifted.shape(), e);
            return null;
        }
        final Bound bound = bind(statement, lifted);
        if (bound == null) {
            statement.close();
        }
        return bound;
    }

    private Bound bind(final PgStatement statement, final PgLiteralLifter.Lifted lifted) {
        if (statement.prepared == null || statement.parameterOids.length != lifted.literals().size()) {
            refuse(lifted.shape(), null);
            return null;
        }
        final int slots = statement.slotTypes.length;
        final ParameterValues values = new ParameterValues().reset(slots);
        for (int slot = 0; slot < slots; slot++) {
            final int type = statement.slotTypes[slot];
            final int p = statement.slotParameter[slot];
            if (type != Types.INTEGER && type != Types.BIGINT || p < 0 || p >= lifted.literals().size()) {
                refuse(lifted.shape(), null);
                return null;
            }
            final long value = Long.parseLong(lifted.literals().get(p));
            if (type == Types.INTEGER) {
                if (value != (int) value) {
                    return null; // this value only: the original text says what it means
                }
                values.set(slot, (int) value);
            } else {
                values.set(slot, value);
            }
        }
        return new Bound(statement, values);
    }

    private void refuse(final String shape, final RuntimeException e) {
        LOG.debug("running the literal form of {}: {}", shape, e == null ? "a parameter is not an integer" : e);
        if (refused.size() >= MAX_REFUSED) {
            refused.clear();
        }
        refused.add(shape);
    }
}
