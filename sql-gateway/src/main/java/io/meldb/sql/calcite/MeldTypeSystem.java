package io.meldb.sql.calcite;

import io.meldb.sql.codec.ColumnType;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeSystemImpl;
import org.apache.calcite.sql.type.SqlTypeName;

import java.math.RoundingMode;

/**
 * Calcite's type rules where PostgreSQL's differ and Calcite's default would give a silently different value:
 * a cast to NUMERIC(p, s) rounds half away from zero (Calcite truncates), SUM of smallint and integer is bigint
 * as in PostgreSQL (so it does not wrap around at 2^31), and NUMERIC holds the 38 digits a MeldDB DECIMAL column
 * may declare (Calcite's default is 19). SUM of bigint stays bigint: Calcite cannot run it into a numeric.
 */
public final class MeldTypeSystem extends RelDataTypeSystemImpl {
    /** Calcite's {@code typeSystem} connection property reads this field. */
    public static final MeldTypeSystem INSTANCE = new MeldTypeSystem();

    private MeldTypeSystem() {
    }

    @Override
    public RoundingMode roundingMode() {
        return RoundingMode.HALF_UP;
    }

    @Override
    public int getMaxPrecision(final SqlTypeName typeName) {
        return typeName == SqlTypeName.DECIMAL ? ColumnType.MAX_DECIMAL_PRECISION : super.getMaxPrecision(typeName);
    }

    @Override
    public RelDataType deriveSumType(final RelDataTypeFactory typeFactory, final RelDataType argumentType) {
        final RelDataType sum = switch (argumentType.getSqlTypeName()) {
            case TINYINT, SMALLINT, INTEGER -> typeFactory.createSqlType(SqlTypeName.BIGINT);
            case DECIMAL -> typeFactory.createSqlType(SqlTypeName.DECIMAL, ColumnType.MAX_DECIMAL_PRECISION,
                    argumentType.getScale());
            default -> super.deriveSumType(typeFactory, argumentType);
        };
        return typeFactory.createTypeWithNullability(sum, argumentType.isNullable());
    }
}
