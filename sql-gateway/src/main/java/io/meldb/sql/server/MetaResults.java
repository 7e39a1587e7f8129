package io.meldb.sql.server;

import org.apache.calcite.avatica.ColumnMetaData;
import org.apache.calcite.avatica.Meta;
import org.apache.calcite.avatica.MetaImpl;

import java.util.ArrayList;
import java.util.List;

/**
 * A {@code DatabaseMetaData} result as Avatica sends it: its columns (names and Java types, in the order the JDBC
 * method's documentation gives) and all its rows in one frame, so the client never fetches.
 */
final class MetaResults {
    /** One column of a metadata result: its JDBC name and the Java class of its values. */
    record Column(String name, Class<?> type) {
    }

    private final List<ColumnMetaData> columns = new ArrayList<>();

    MetaResults(final Column... columns) {
        for (int i = 0; i < columns.length; i++) {
            this.columns.add(MetaImpl.columnMetaData(columns[i].name(), i, columns[i].type(), true));
        }
    }

    static Column text(final String name) {
        return new Column(name, String.class);
    }

    static Column integer(final String name) {
        return new Column(name, Integer.class);
    }

    static Column small(final String name) {
        return new Column(name, Short.class);
    }

    static Column bool(final String name) {
        return new Column(name, Boolean.class);
    }

    static Column big(final String name) {
        return new Column(name, Long.class);
    }

    int width() {
        return columns.size();
    }

    /**
     * The result set for statement {@code statementId} of connection {@code connectionId}; {@code ownStatement}
     * when the statement was made for it (a DatabaseMetaData call) rather than the client's.
     */
    Meta.MetaResultSet resultSet(final String connectionId, final int statementId, final boolean ownStatement,
                                 final List<Object[]> rows) {
        for (Object[] row : rows) {
            if (row.length != columns.size()) {
                throw new IllegalStateException("a metadata row of " + row.length + " values for " + columns.size()
                        + " columns");
            }
        }
        final Meta.Signature signature = Meta.Signature.create(columns, "", List.of(), Meta.CursorFactory.ARRAY,
                Meta.StatementType.SELECT);
        return Meta.MetaResultSet.create(connectionId, statementId, ownStatement, signature,
                Meta.Frame.create(0, true, new ArrayList<Object>(rows)));
    }
}
