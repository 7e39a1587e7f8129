package io.meldb.sql.server;

import org.apache.calcite.avatica.ColumnMetaData;
import org.apache.calcite.avatica.Meta;

import java.sql.Types;
import java.util.List;

/**
 * The JDBC front end's string result columns as pgjdbc describes PostgreSQL's: a computed string (a literal, a
 * CASE over literals, a concatenation) is text in PostgreSQL, which JDBC calls VARCHAR; Calcite types string
 * literals CHAR(n). Only a column read from a table keeps CHAR (MeldDB's char(n) columns are VARCHAR to Calcite,
 * so a CHAR result is always computed).
 */
final class JdbcStringColumns {
    private static final ColumnMetaData.AvaticaType VARCHAR =
            ColumnMetaData.scalar(Types.VARCHAR, "VARCHAR", ColumnMetaData.Rep.STRING);

    private JdbcStringColumns() {
    }

    /** Rewrites, in place, the CHAR columns of {@code signature} that no table column is the origin of. */
    static void computedAsVarchar(final Meta.Signature signature) {
        if (signature == null || signature.columns == null) {
            return;
        }
        final List<ColumnMetaData> columns = signature.columns;
        for (int i = 0; i < columns.size(); i++) {
            final ColumnMetaData c = columns.get(i);
            if (c.type != null && c.type.id == Types.CHAR && (c.tableName == null || c.tableName.isEmpty())) {
                columns.set(i, new ColumnMetaData(c.ordinal, c.autoIncrement, c.caseSensitive, c.searchable,
                        c.currency, c.nullable, c.signed, c.displaySize, c.label, c.columnName, c.schemaName,
                        c.precision, c.scale, c.tableName, c.catalogName, VARCHAR, c.readOnly, c.writable,
                        c.definitelyWritable, String.class.getName()));
            }
        }
    }

    /** The same for every result set of {@code result}. */
    static Meta.ExecuteResult computedAsVarchar(final Meta.ExecuteResult result) {
        if (result != null && result.resultSets != null) {
            for (Meta.MetaResultSet r : result.resultSets) {
                computedAsVarchar(r.signature);
            }
        }
        return result;
    }
}
