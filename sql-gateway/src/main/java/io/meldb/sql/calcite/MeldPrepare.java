package io.meldb.sql.calcite;

import org.apache.calcite.adapter.enumerable.EnumerableConvention;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.java.JavaTypeFactory;
import org.apache.calcite.config.CalciteConnectionConfig;
import org.apache.calcite.jdbc.CalcitePrepare;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.prepare.CalciteCatalogReader;
import org.apache.calcite.prepare.CalcitePrepareImpl;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.util.SqlOperatorTables;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql2rel.SqlRexConvertletTable;

import java.lang.reflect.Type;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Calcite's statement preparation with MeldDB's validator ({@link MeldValidator}: PostgreSQL's result types), its
 * operators ahead of Calcite's libraries ({@link PgOperatorTable}) and conversion of SQL into expressions
 * ({@link MeldConvertlets}: PostgreSQL's values for them).
 */
public final class MeldPrepare extends CalcitePrepareImpl {
    @Override
    protected SqlRexConvertletTable createConvertletTable() {
        return MeldConvertlets.INSTANCE;
    }

    @Override
    protected CalcitePreparingStmt getPreparingStmt(final CalcitePrepare.Context context, final Type elementType,
            final CalciteCatalogReader catalogReader, final RelOptPlanner planner) {
        final JavaTypeFactory typeFactory = context.getTypeFactory();
        final EnumerableRel.Prefer prefer = elementType == Object[].class ? EnumerableRel.Prefer.ARRAY
                : EnumerableRel.Prefer.CUSTOM;
        return new PreparingStmt(this, context, catalogReader, typeFactory, context.getRootSchema(), prefer,
                createCluster(planner, new RexBuilder(typeFactory)), createConvertletTable());
    }

    /** Calcite's preparing statement, validating with {@link MeldValidator}. */
    private static final class PreparingStmt extends CalcitePreparingStmt {
        PreparingStmt(final CalcitePrepareImpl prepare, final CalcitePrepare.Context context,
                final Prepare.CatalogReader catalogReader, final RelDataTypeFactory typeFactory,
                final CalciteSchema schema, final EnumerableRel.Prefer prefer, final RelOptCluster cluster,
                final SqlRexConvertletTable convertletTable) {
            super(prepare, context, catalogReader, typeFactory, schema, prefer, cluster,
                    EnumerableConvention.INSTANCE, convertletTable);
        }

        @Override
        protected SqlValidator createSqlValidator(final Prepare.CatalogReader catalogReader,
                final UnaryOperator<SqlValidator.Config> configTransform) {
            // as Calcite's own (CalcitePrepareImpl.createSqlValidator), with MeldValidator
            final CalciteConnectionConfig config = context.config();
            // MeldDB's operators first: they stand in for Calcite's of the same names (PgOperatorTable)
            final SqlOperatorTable opTab = SqlOperatorTables.chain(List.of(PgOperatorTable.INSTANCE,
                    config.fun(SqlOperatorTable.class, SqlStdOperatorTable.instance()), catalogReader));
            return new MeldValidator(opTab, (CalciteCatalogReader) catalogReader, context.getTypeFactory(),
                    configTransform.apply(SqlValidator.Config.DEFAULT
                            .withLenientOperatorLookup(config.lenientOperatorLookup())
                            .withConformance(config.conformance())
                            .withDefaultNullCollation(config.defaultNullCollation())
                            .withIdentifierExpansion(true)));
        }
    }
}
