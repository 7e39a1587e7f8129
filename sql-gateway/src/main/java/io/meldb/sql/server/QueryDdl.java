package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.CatalogStore;
import io.meldb.sql.catalog.ColumnDef;
import io.meldb.sql.catalog.Ddl;
import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.catalog.TableStore;
import io.meldb.sql.catalog.ViewDdl;
import io.meldb.sql.catalog.ViewDef;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;
import io.meldb.txn.api.TxnSession;
import io.meldb.sql.calcite.MeldLex;
import org.apache.calcite.runtime.Hook;
import org.apache.calcite.sql.dialect.CalciteSqlDialect;
import org.apache.calcite.sql.parser.SqlParseException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * The DDL that runs a query: CREATE VIEW (the query is planned to learn its columns and to refuse a bad one now)
 * and CREATE TABLE ... AS (the new table, without a primary key, gets the query's columns and, unless WITH NO DATA,
 * its rows, all in the statement's transaction). The query is planned by Calcite on a connection over the same
 * transaction.
 */
final class QueryDdl {
    private QueryDdl() {
    }

    static void createView(final Connection calcite, final ViewDdl views, final TxnSession txn, final String db,
                           final String schema, final Ddl.CreateView v, final java.util.function.BooleanSupplier
                                   cancelled) {
        final String sql = canonical(v.query());
        try (Hook.Closeable program = SqlEngine.withMeldProgram(cancelled);
             PreparedStatement ps = calcite.prepareStatement(sql)) {
            final ResultSetMetaData md = ps.getMetaData();
            final List<String> names = names(md, v.columnNames());
            final List<ViewDef.Column> columns = new ArrayList<>();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                columns.add(new ViewDef.Column(names.get(i - 1), md.getColumnType(i), md.getPrecision(i),
                        md.getScale(i), md.isNullable(i) != ResultSetMetaData.columnNoNulls));
            }
            views.createView(txn, db, schema, v.name(), sql, columns, v.orReplace());
        } catch (SQLException e) {
            throw SqlErrors.toSqlState(e);
        }
    }

    /**
     * A view's query as the catalog keeps it: parsed with the gateway's identifier rule and written back with every
     * identifier quoted, so that Calcite's view expansion, which parses with its default rule (unquoted names to
     * upper case), finds the same tables and columns.
     */
    static String canonical(final String query) {
        try {
            return MeldLex.parser(query).parseQuery().toSqlString(CalciteSqlDialect.DEFAULT).getSql();
        } catch (SqlParseException e) {
            throw new SqlStateException("42601", "syntax error in the view's query: " + e.getMessage());
        }
    }

    /** Answers how many rows it inserted. */
    static long createTableAs(final Connection calcite, final CatalogStore store, final TxnSession txn,
                              final String db, final String schema, final Ddl.CreateTableAs c,
                              final java.util.function.BooleanSupplier cancelled) {
        try (Hook.Closeable program = SqlEngine.withMeldProgram(cancelled);
             PreparedStatement ps = calcite.prepareStatement(c.query())) {
            final ResultSetMetaData md = ps.getMetaData();
            final List<String> names = names(md, c.columnNames());
            final List<ColumnDef> columns = new ArrayList<>();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                columns.add(new ColumnDef(names.get(i - 1), columnType(md, i), true));
            }
            if (!store.createTable(txn, db, schema, new Ddl.CreateTable(schema, c.name(), columns, new int[0],
                    c.ifNotExists()))) {
                return 0; // it exists: IF NOT EXISTS (PostgreSQL: a notice, nothing inserted)
            }
            if (!c.withData()) {
                return 0;
            }
            final TableDef def = store.read(txn).table(db, schema, c.name());
            final TableStore table = new TableStore(def);
            long rows = 0;
            try (ResultSet rs = ps.executeQuery()) {
                final int n = columns.size();
                while (rs.next()) {
                    final Object[] row = new Object[n];
                    for (int i = 0; i < n; i++) {
                        row[i] = rs.getObject(i + 1);
                    }
                    table.insert(txn, row);
                    rows++;
                }
            }
            return rows;
        } catch (SQLException e) {
            throw SqlErrors.toSqlState(e);
        }
    }

    /** The columns' names: as given (42601 when the count differs, as PostgreSQL), or the query's, folded. */
    private static List<String> names(final ResultSetMetaData md, final List<String> given) throws SQLException {
        final int n = md.getColumnCount();
        if (!given.isEmpty()) {
            if (given.size() > n) {
                throw new SqlStateException("42601", "too many column names were specified");
            }
        }
        final List<String> out = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
            final String name = i <= given.size() ? given.get(i - 1) : md.getColumnLabel(i);
            if (out.contains(name)) {
                throw new SqlStateException("42701", "column \"" + name + "\" specified more than once");
            }
            out.add(name);
        }
        return out;
    }

    /** The MeldDB type of a query's column (0A000 for one no MeldDB column can hold). */
    private static ColumnType columnType(final ResultSetMetaData md, final int i) throws SQLException {
        final int precision = md.getPrecision(i);
        return switch (md.getColumnType(i)) {
            case Types.INTEGER -> ColumnType.of(SqlType.INTEGER);
            case Types.BIGINT -> ColumnType.of(SqlType.BIGINT);
            case Types.SMALLINT, Types.TINYINT -> ColumnType.of(SqlType.SMALLINT);
            case Types.DOUBLE, Types.FLOAT, Types.REAL -> ColumnType.of(SqlType.DOUBLE);
            case Types.BOOLEAN -> ColumnType.of(SqlType.BOOLEAN);
            case Types.DATE -> ColumnType.of(SqlType.DATE);
            case Types.TIMESTAMP -> ColumnType.of(SqlType.TIMESTAMP);
            // numeric without a precision (an arithmetic result) stays so: its values keep their scales
            case Types.DECIMAL, Types.NUMERIC -> precision <= 0 ? ColumnType.NUMERIC : new ColumnType(SqlType.DECIMAL,
                    Math.min(Math.max(precision, 1), ColumnType.MAX_DECIMAL_PRECISION),
                    Math.max(0, Math.min(md.getScale(i), Math.max(precision, 1))));
            case Types.CHAR -> new ColumnType(SqlType.CHAR, Math.max(1, Math.min(precision,
                    ColumnType.MAX_STRING_LENGTH)), 0);
            case Types.VARCHAR -> new ColumnType(SqlType.VARCHAR, precision <= 0 || precision
                    > ColumnType.MAX_STRING_LENGTH ? ColumnType.DEFAULT_VARCHAR_LENGTH : precision, 0);
            default -> throw new SqlStateException("0A000", "CREATE TABLE ... AS: column \"" + md.getColumnLabel(i)
                    + "\" has type " + md.getColumnTypeName(i) + ", which no MeldDB column can hold");
        };
    }
}
