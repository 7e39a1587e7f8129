package io.meldb.sql.calcite;

import io.meldb.sql.codec.ColumnType;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeSystemImpl;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.checkerframework.checker.nullness.qual.Nullable;

import java.math.RoundingMode;

/**
 * Calcite's type rules where PostgreSQL's differ and Calcite's default would give a silently different value:
 * a cast to NUMERIC(p, s) rounds half away from zero (Calcite truncates); SUM of smallint and integer is bigint
 * and SUM of bigint and numeric is numeric, as in PostgreSQL (so none wraps around); AVG, STDDEV and VARIANCE of
 * exact numbers are numeric; arithmetic on numerics is numeric without a precision or scale
 * ({@link PgNumericType}); and NUMERIC(p, s) holds the 38 digits a MeldDB DECIMAL column may declare.
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
            // PostgreSQL: sum(numeric) and sum(bigint) are numeric, which cannot overflow
            case BIGINT, DECIMAL -> PgNumericType.of(typeFactory, false);
            default -> super.deriveSumType(typeFactory, argumentType);
        };
        return typeFactory.createTypeWithNullability(sum, argumentType.isNullable());
    }

    /**
     * The common type of string literals of different lengths (CASE branches, UNION columns, IN and ARRAY lists)
     * is varying, not a CHAR padded to the longest: PostgreSQL resolves such literals to text, so
     * {@code CASE WHEN true THEN 'a' ELSE 'abc' END} is 'a' and {@code 'ab ' = 'ab'} is false. (MeldDB's CHAR(n)
     * columns are VARCHAR to Calcite; only literals are CHAR.)
     */
    @Override
    public boolean shouldConvertRaggedUnionTypesToVarying() {
        return true;
    }

    /** PostgreSQL: avg, stddev and variance of exact numbers are numeric, of floating-point numbers double. */
    @Override
    public RelDataType deriveAvgAggType(final RelDataTypeFactory typeFactory, final RelDataType argumentType) {
        if (SqlTypeUtil.isExactNumeric(argumentType)) {
            return PgNumericType.of(typeFactory, argumentType.isNullable());
        }
        if (SqlTypeUtil.isApproximateNumeric(argumentType)) {
            return typeFactory.createTypeWithNullability(typeFactory.createSqlType(SqlTypeName.DOUBLE),
                    argumentType.isNullable());
        }
        return super.deriveAvgAggType(typeFactory, argumentType);
    }

    @Override
    public @Nullable RelDataType deriveDecimalPlusType(final RelDataTypeFactory typeFactory, final RelDataType type1,
            final RelDataType type2) {
        return numericResult(typeFactory, type1, type2);
    }

    @Override
    public @Nullable RelDataType deriveDecimalMultiplyType(final RelDataTypeFactory typeFactory,
            final RelDataType type1, final RelDataType type2) {
        return numericResult(typeFactory, type1, type2);
    }

    @Override
    public @Nullable RelDataType deriveDecimalDivideType(final RelDataTypeFactory typeFactory,
            final RelDataType type1, final RelDataType type2) {
        return numericResult(typeFactory, type1, type2);
    }

    @Override
    public @Nullable RelDataType deriveDecimalModType(final RelDataTypeFactory typeFactory, final RelDataType type1,
            final RelDataType type2) {
        return numericResult(typeFactory, type1, type2);
    }

    /**
     * PostgreSQL's numeric operators return numeric without a precision or scale, each value with the display scale
     * its operation gives; null (Calcite's rule) unless both operands are exact and one is a decimal.
     */
    private static @Nullable RelDataType numericResult(final RelDataTypeFactory typeFactory, final RelDataType type1,
            final RelDataType type2) {
        if (SqlTypeUtil.isExactNumeric(type1) && SqlTypeUtil.isExactNumeric(type2)
                && (SqlTypeUtil.isDecimal(type1) || SqlTypeUtil.isDecimal(type2))) {
            return PgNumericType.of(typeFactory, type1.isNullable() || type2.isNullable());
        }
        return null;
    }
}
