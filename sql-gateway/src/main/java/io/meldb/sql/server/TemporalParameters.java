package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.avatica.AvaticaParameter;
import org.apache.calcite.avatica.ColumnMetaData;
import org.apache.calcite.avatica.remote.TypedValue;

import java.sql.Types;
import java.util.List;
import java.util.Set;

/**
 * Refuses a number bound to a DATE, TIME or TIMESTAMP parameter on the JDBC (Avatica) front end. MeldDB keeps those
 * types as numbers while a row is in flight (days, milliseconds), so {@code setInt(1, 0)} on a DATE parameter
 * would otherwise be stored as 1970-01-01; PostgreSQL answers 42804 and so does MeldDB.
 */
final class TemporalParameters {
    private static final Set<ColumnMetaData.Rep> NUMBERS = Set.of(ColumnMetaData.Rep.PRIMITIVE_BYTE,
            ColumnMetaData.Rep.PRIMITIVE_SHORT, ColumnMetaData.Rep.PRIMITIVE_INT, ColumnMetaData.Rep.PRIMITIVE_LONG,
            ColumnMetaData.Rep.PRIMITIVE_FLOAT, ColumnMetaData.Rep.PRIMITIVE_DOUBLE, ColumnMetaData.Rep.BYTE,
            ColumnMetaData.Rep.SHORT, ColumnMetaData.Rep.INTEGER, ColumnMetaData.Rep.LONG, ColumnMetaData.Rep.FLOAT,
            ColumnMetaData.Rep.DOUBLE, ColumnMetaData.Rep.NUMBER);

    private TemporalParameters() {
    }

    static void check(final List<AvaticaParameter> parameters, final List<TypedValue> values) {
        if (parameters == null || values == null) {
            return;
        }
        for (int i = 0; i < Math.min(parameters.size(), values.size()); i++) {
            final TypedValue v = values.get(i);
            if (v == null || v.value == null || !NUMBERS.contains(v.type)) {
                continue;
            }
            final int type = parameters.get(i).parameterType;
            if (type == Types.DATE || type == Types.TIME || type == Types.TIMESTAMP
                    || type == Types.TIMESTAMP_WITH_TIMEZONE) {
                throw new SqlStateException("42804", "parameter " + (i + 1) + " is of type "
                        + parameters.get(i).typeName.toLowerCase(java.util.Locale.ROOT) + " but a number was bound "
                        + "to it");
            }
        }
    }
}
