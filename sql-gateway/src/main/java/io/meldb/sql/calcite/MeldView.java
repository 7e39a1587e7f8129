package io.meldb.sql.calcite;

import io.meldb.sql.catalog.ViewDef;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.impl.ViewTable;
import org.apache.calcite.sql.type.SqlTypeName;

import java.util.List;

/**
 * A catalog view as Calcite's {@link ViewTable}: Calcite expands the stored query in place of the view's name
 * (in the statement's own planner, with the connection's dialect) and casts it to the row type the view had when
 * it was made.
 */
final class MeldView {
    private MeldView() {
    }

    static ViewTable of(final ViewDef def) {
        return new ViewTable(Object[].class, factory -> rowType(def, factory), def.sql(), List.of(def.schema()),
                List.of(def.schema(), def.name()));
    }

    private static RelDataType rowType(final ViewDef def, final RelDataTypeFactory factory) {
        final RelDataTypeFactory.Builder b = factory.builder();
        for (ViewDef.Column c : def.columns()) {
            SqlTypeName name = SqlTypeName.getNameForJdbcType(c.jdbcType());
            if (name == null) {
                name = SqlTypeName.ANY;
            }
            final RelDataType type;
            if (name.allowsPrecScale(true, true) && c.precision() > 0) {
                type = factory.createSqlType(name, c.precision(), c.scale());
            } else if (name.allowsPrecNoScale() && c.precision() > 0) {
                type = factory.createSqlType(name, c.precision());
            } else {
                type = factory.createSqlType(name);
            }
            b.add(c.name(), factory.createTypeWithNullability(type, c.nullable()));
        }
        return b.build();
    }
}
