package io.meldb.sql.calcite;

import org.apache.calcite.schema.impl.AggregateFunctionImpl;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.InferTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlReturnTypeInference;
import org.apache.calcite.sql.type.SqlTypeTransforms;
import org.apache.calcite.sql.validate.SqlUserDefinedAggFunction;
import org.apache.calcite.sql.validate.SqlUserDefinedFunction;
import org.apache.calcite.util.Optionality;

/**
 * The operators that carry PostgreSQL's numeric semantics into plans: numeric division ({@link PgNumerics#divide})
 * and avg, variance and stddev over exact numbers. The planner puts them where Calcite's own operators would give
 * other values ({@link MeldConvertlets} for division, {@link NumericAggregates} for the aggregates); they are not
 * names a statement can call.
 */
public final class PgNumericOperators {
    private static final SqlReturnTypeInference NUMERIC =
            ReturnTypes.cascade(opBinding -> PgNumericType.of(opBinding.getTypeFactory(), false),
                    SqlTypeTransforms.TO_NULLABLE);
    private static final SqlReturnTypeInference NULLABLE_NUMERIC =
            opBinding -> PgNumericType.of(opBinding.getTypeFactory(), true);

    /** numeric / numeric. */
    public static final SqlUserDefinedFunction DIVIDE = new SqlUserDefinedFunction(
            new SqlIdentifier("numeric_div", SqlParserPos.ZERO), SqlKind.OTHER_FUNCTION, NUMERIC,
            InferTypes.FIRST_KNOWN, null, ScalarFunctionImpl.create(PgNumerics.class, "divide"));

    /** round(double precision): to the nearest integer, halves to even, as PostgreSQL's dround (C's rint). */
    public static final SqlUserDefinedFunction RINT = new SqlUserDefinedFunction(
            new SqlIdentifier("round", SqlParserPos.ZERO), SqlKind.OTHER_FUNCTION,
            ReturnTypes.cascade(ReturnTypes.explicit(org.apache.calcite.sql.type.SqlTypeName.DOUBLE),
                    SqlTypeTransforms.TO_NULLABLE),
            InferTypes.FIRST_KNOWN, null, ScalarFunctionImpl.create(Math.class, "rint"));

    public static final SqlUserDefinedAggFunction AVG = aggregate("avg", PgNumerics.Avg.class);
    public static final SqlUserDefinedAggFunction VAR_SAMP = aggregate("var_samp", PgNumerics.VarSamp.class);
    public static final SqlUserDefinedAggFunction VAR_POP = aggregate("var_pop", PgNumerics.VarPop.class);
    public static final SqlUserDefinedAggFunction STDDEV_SAMP = aggregate("stddev_samp", PgNumerics.StddevSamp.class);
    public static final SqlUserDefinedAggFunction STDDEV_POP = aggregate("stddev_pop", PgNumerics.StddevPop.class);

    private PgNumericOperators() {
    }

    private static SqlUserDefinedAggFunction aggregate(final String name, final Class<?> implementation) {
        return new SqlUserDefinedAggFunction(new SqlIdentifier(name, SqlParserPos.ZERO), SqlKind.OTHER_FUNCTION,
                NULLABLE_NUMERIC, InferTypes.FIRST_KNOWN, null, AggregateFunctionImpl.create(implementation),
                false, false, Optionality.FORBIDDEN);
    }
}
