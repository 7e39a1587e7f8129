package io.meldb.sql.calcite;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeSystem;
import org.apache.calcite.sql.type.BasicSqlType;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * PostgreSQL's {@code numeric} without a precision or scale: a decimal whose every value keeps its own display
 * scale (PostgreSQL's {@code dscale}), so {@code 0.1::numeric + 0.2} is 0.3 and {@code 1.25} stored in a
 * {@code numeric} column stays 1.25. Calcite's DECIMAL always has a precision and a scale and rounds every value
 * cast to it; this type answers {@link RelDataType#PRECISION_NOT_SPECIFIED} and
 * {@link RelDataType#SCALE_NOT_SPECIFIED}, which Calcite's code generator and literal folding read as "keep the
 * value's own scale" (a cast to it converts without rounding). Every arithmetic result on numerics is of this type,
 * as in PostgreSQL, where numeric operators return unconstrained numeric ({@link MeldTypeSystem}).
 */
public final class PgNumericType extends BasicSqlType {
    private static final long serialVersionUID = 1L;

    PgNumericType(final RelDataTypeSystem typeSystem, final boolean nullable) {
        super(typeSystem, SqlTypeName.DECIMAL, nullable);
    }

    /** The type from {@code typeFactory}, canonical there (types are compared by digest). */
    public static RelDataType of(final RelDataTypeFactory typeFactory, final boolean nullable) {
        return typeFactory.createTypeWithNullability(new PgNumericType(typeFactory.getTypeSystem(), false),
                nullable);
    }

    /** Whether {@code type} is numeric without a precision and scale. */
    public static boolean is(final RelDataType type) {
        return type instanceof PgNumericType;
    }

    @Override
    public int getPrecision() {
        return PRECISION_NOT_SPECIFIED;
    }

    @Override
    public int getScale() {
        return SCALE_NOT_SPECIFIED;
    }

    @Override
    public BasicSqlType createWithNullability(final boolean nullable) {
        return nullable == isNullable() ? this : new PgNumericType(typeSystem, nullable);
    }

    @Override
    protected void generateTypeString(final StringBuilder sb, final boolean withDetail) {
        // distinct from every DECIMAL(p, s): the digest is what makes two types the same type
        sb.append("NUMERIC");
    }
}
