package io.meldb.sql.calcite;

import org.apache.calcite.adapter.java.JavaTypeFactory;
import org.apache.calcite.prepare.CalciteCatalogReader;
import org.apache.calcite.prepare.CalciteSqlValidator;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.validate.SqlValidatorScope;

/**
 * Calcite's validator with PostgreSQL's result types for the built-in operators whose Calcite definitions type
 * them otherwise ({@link PgResultTypes}): an expression's type is decided here, before conversion, so every
 * expression above it (and the statement's result columns) sees PostgreSQL's type. A date plus or minus an
 * interval is a timestamp. A GROUP BY of a table's primary key lets the table's other columns be selected
 * ({@link FunctionalDependencies}). The select items' declared string types are recorded for the result's description
 * ({@link DeclaredTypes}); so is the type name of each {@code pg_typeof} argument ({@link PgTypeOf}), where its
 * scope can tell the table column it reads. A scalar function in FROM becomes the query of its one value before
 * validation ({@link FunctionsInFrom}).
 */
final class MeldValidator extends CalciteSqlValidator {
    MeldValidator(final SqlOperatorTable opTab, final CalciteCatalogReader catalogReader,
            final JavaTypeFactory typeFactory, final Config config) {
        super(opTab, catalogReader, typeFactory, config);
    }

    /** The type names of the pg_typeof calls validated, by call ({@link PgTypeOf}). */
    private final java.util.Map<SqlNode, String> typeNames = new java.util.IdentityHashMap<>();

    /** The type name that validation found for a pg_typeof call, or null. */
    String typeNameOf(final SqlNode call) {
        return typeNames.get(call);
    }

    /**
     * Before anything else: a scalar function in FROM is a table of its one value ({@link FunctionsInFrom}), and a
     * call of one of MeldDB's overloaded schema functions names the overload of its argument count.
     */
    @Override
    protected SqlNode performUnconditionalRewrites(final SqlNode node, final boolean underFrom) {
        if (node instanceof org.apache.calcite.sql.SqlSelect select) {
            FunctionsInFrom.rewrite(select, getOperatorTable(), getCatalogReader().nameMatcher());
        }
        if (node instanceof org.apache.calcite.sql.SqlBasicCall call
                && call.getOperator() instanceof org.apache.calcite.sql.SqlUnresolvedFunction function) {
            resolveByArity(call, function);
        }
        return super.performUnconditionalRewrites(node, underFrom);
    }

    /**
     * Resolves {@code call} now when the function's overloads are all schema functions and one alone takes as many
     * arguments as it has ({@code current_setting(name)} and {@code current_setting(name, missing_ok)}): Calcite
     * resolves a function before validating its arguments only when it has one overload, and a parameter
     * ({@code current_setting($1)}) takes its type from the function it is an argument of.
     */
    private void resolveByArity(final org.apache.calcite.sql.SqlBasicCall call,
                                final org.apache.calcite.sql.SqlUnresolvedFunction function) {
        final java.util.List<org.apache.calcite.sql.SqlOperator> overloads = new java.util.ArrayList<>();
        getOperatorTable().lookupOperatorOverloads(function.getNameAsId(), function.getFunctionType(),
                org.apache.calcite.sql.SqlSyntax.FUNCTION, overloads, getCatalogReader().nameMatcher());
        org.apache.calcite.sql.SqlOperator only = null;
        for (org.apache.calcite.sql.SqlOperator op : overloads) {
            if (!(op instanceof org.apache.calcite.sql.validate.SqlUserDefinedFunction udf)
                    || udf.getFunctionType().isTableFunction()) {
                return;
            }
            if (udf.getFunction().getParameters().size() == call.operandCount()) {
                if (only != null) {
                    return;
                }
                only = op;
            }
        }
        if (only != null && overloads.size() > 1) {
            call.setOperator(only);
        }
    }

    @Override
    public SqlNode validate(final SqlNode topNode) {
        FunctionalDependencies.extendGroupBy(topNode, getCatalogReader());
        final SqlNode validated = super.validate(topNode);
        DeclaredTypes.record(validated);
        return validated;
    }

    @Override
    public RelDataType deriveType(final SqlValidatorScope scope, final SqlNode expr) {
        final RelDataType type = super.deriveType(scope, expr);
        if (expr instanceof org.apache.calcite.sql.SqlCall call && call.getOperator() == PgTypeOf.OPERATOR
                && call.operandCount() == 1) {
            final SqlNode operand = call.operand(0);
            final RelDataType operandType = getValidatedNodeTypeIfKnown(operand);
            typeNames.put(call, PgTypeOf.of(operand, operandType != null ? operandType
                    : super.deriveType(scope, operand), scope));
        }
        RelDataType pg = PgResultTypes.of(typeFactory, expr, type);
        if (expr instanceof org.apache.calcite.sql.SqlCall call) {
            pg = PgNameType.of(typeFactory, call, pg);
        }
        if (pg == type && PgResultTypes.dateAndInterval(expr, type, this::getValidatedNodeTypeIfKnown)) {
            // date ± interval is a timestamp in PostgreSQL (date_pl_interval), a date in Calcite
            pg = typeFactory.createTypeWithNullability(
                    typeFactory.createSqlType(org.apache.calcite.sql.type.SqlTypeName.TIMESTAMP), type.isNullable());
        }
        if (pg != type) {
            setValidatedNodeType(expr, pg);
        }
        return pg;
    }
}
