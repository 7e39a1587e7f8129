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
 * ({@link DeclaredTypes}).
 */
final class MeldValidator extends CalciteSqlValidator {
    MeldValidator(final SqlOperatorTable opTab, final CalciteCatalogReader catalogReader,
            final JavaTypeFactory typeFactory, final Config config) {
        super(opTab, catalogReader, typeFactory, config);
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
        RelDataType pg = PgResultTypes.of(typeFactory, expr, type);
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
