package io.meldb.sql.calcite;

import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeSystem;
import org.apache.calcite.sql.type.SqlTypeMappingRule;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.checkerframework.checker.nullness.qual.Nullable;

import java.util.List;

/**
 * Calcite's type factory with PostgreSQL's numeric: DECIMAL without a precision ({@code CAST(x AS numeric)},
 * {@code x::numeric}) is {@link PgNumericType}, numeric without a precision or scale; and the common type of exact
 * numbers of which one is a decimal (CASE branches, UNION columns, COALESCE arguments, IN lists) is that same
 * numeric unless they all have one type, as PostgreSQL's {@code select_common_type} resolves them. Calcite would
 * widen them to a DECIMAL(p, s) and pad {@code 1.5} to {@code 1.50}.
 */
public final class MeldTypeFactory extends JavaTypeFactoryImpl {
    public MeldTypeFactory(final RelDataTypeSystem typeSystem) {
        super(typeSystem);
    }

    @Override
    public RelDataType createSqlType(final SqlTypeName typeName) {
        if (typeName == SqlTypeName.DECIMAL) {
            return PgNumericType.of(this, false);
        }
        return super.createSqlType(typeName);
    }

    @Override
    public @Nullable RelDataType leastRestrictive(final List<RelDataType> types,
            final SqlTypeMappingRule mappingRule) {
        final RelDataType numeric = numericCommonType(types);
        return numeric != null ? numeric : super.leastRestrictive(types, mappingRule);
    }

    /**
     * Numeric when every type is an exact number or NULL, one is a decimal and they are not all the same
     * DECIMAL(p, s); else null (Calcite's rule applies, which cannot read numeric's unspecified scale).
     */
    private @Nullable RelDataType numericCommonType(final List<RelDataType> types) {
        boolean decimal = false;
        boolean nullable = false;
        RelDataType first = null;
        boolean same = true;
        for (RelDataType t : types) {
            if (t.getSqlTypeName() == SqlTypeName.NULL) {
                nullable = true;
                continue;
            }
            if (!SqlTypeUtil.isExactNumeric(t) || t.getSqlTypeName() == null) {
                return null;
            }
            nullable |= t.isNullable();
            decimal |= t.getSqlTypeName() == SqlTypeName.DECIMAL;
            if (first == null) {
                first = t;
            } else if (!SqlTypeUtil.equalSansNullability(this, first, t)) {
                same = false;
            }
        }
        if (!decimal || same && !PgNumericType.is(first)) {
            return null;
        }
        return PgNumericType.of(this, nullable);
    }
}
