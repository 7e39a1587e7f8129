package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.TableDef;
import org.apache.calcite.avatica.Meta;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code INSERT | UPDATE | DELETE ... RETURNING} through MeldDB's JDBC front end ({@link MeldMeta}), as the
 * PostgreSQL one runs it ({@link Returning}): the statement runs without its clause while the rows it writes are
 * captured, and the result carries the clause's columns of those rows in one frame. The result's columns are
 * described as Calcite describes a query of the same columns of the table, so their types are what a SELECT of them
 * returns.
 */
final class JdbcReturning {
    private JdbcReturning() {
    }

    /** A query with the result's columns and no rows, for its signature. */
    static String describingQuery(final Returning returning, final TableDef table) {
        final StringBuilder b = new StringBuilder("SELECT ");
        for (int i = 0; i < returning.columns().length; i++) {
            if (i > 0) {
                b.append(", ");
            }
            b.append(quoted(table.columns().get(returning.columns()[i]).name())).append(" AS ")
                    .append(quoted(returning.result().get(i).name()));
        }
        return b.append(" FROM ").append(quoted(table.schema())).append('.').append(quoted(table.name()))
                .append(" WHERE 1 = 0").toString();
    }

    /** Runs the statement on {@code calcite} (in the connection's transaction) and returns its rows. */
    static Meta.ExecuteResult execute(final Meta.StatementHandle h, final Returning returning, final TableDef table,
                                      final Meta.Signature signature, final GatewayConnection state,
                                      final Connection calcite) {
        final List<Object[]> written = new ArrayList<>();
        state.captureWrittenRows(written);
        try (Statement s = calcite.createStatement()) {
            s.executeLargeUpdate(DateTimeIdentifiers.quote(returning.sql()));
        } catch (SQLException e) {
            throw SqlErrors.toSqlState(e);
        } finally {
            state.captureWrittenRows(null);
        }
        final List<Object> rows = new ArrayList<>(written.size());
        final int n = returning.columns().length;
        try (RowCursor cursor = returning.cursor(table, written)) {
            while (cursor.next()) {
                final Object[] row = new Object[n];
                for (int i = 0; i < n; i++) {
                    row[i] = MeldMeta.frameValue(cursor.value(i));
                }
                rows.add(row);
            }
        }
        return new Meta.ExecuteResult(List.of(Meta.MetaResultSet.create(h.connectionId, h.id, false, signature,
                Meta.Frame.create(0, true, rows))));
    }

    /** RETURNING with ON CONFLICT goes through the PostgreSQL front end only. */
    static void refuseClauses(final Returning returning) {
        if (StatementClauses.of(returning.sql()) != null) {
            throw new SqlStateException("0A000", "RETURNING together with ON CONFLICT or FOR UPDATE is not supported "
                    + "over MeldDB's JDBC driver; it is over the PostgreSQL protocol");
        }
    }

    private static String quoted(final String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }
}
