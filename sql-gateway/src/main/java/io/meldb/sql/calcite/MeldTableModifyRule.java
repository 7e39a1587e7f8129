package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.adapter.enumerable.EnumerableConvention;
import org.apache.calcite.plan.Convention;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.convert.ConverterRule;
import org.apache.calcite.rel.core.TableModify;
import org.apache.calcite.rel.logical.LogicalTableModify;

/** Converts a logical INSERT/UPDATE/DELETE on a MeldDB table into a {@link MeldTableModify}. */
public final class MeldTableModifyRule extends ConverterRule {
    public static final MeldTableModifyRule INSTANCE = new MeldTableModifyRule(Config.INSTANCE
            .withConversion(LogicalTableModify.class,
                    (LogicalTableModify m) -> m.getTable().unwrap(MeldTable.class) != null,
                    Convention.NONE, EnumerableConvention.INSTANCE, "MeldTableModifyRule")
            .withRuleFactory(MeldTableModifyRule::new));

    private MeldTableModifyRule(final Config config) {
        super(config);
    }

    @Override
    public RelNode convert(final RelNode rel) {
        final TableModify modify = (TableModify) rel;
        final MeldTable table = modify.getTable().unwrap(MeldTable.class);
        if (modify.getOperation() == TableModify.Operation.MERGE && table.def().hiddenRowId()) {
            // MergeRows tells a matched row by its primary key, and finds it by it
            throw new SqlStateException("0A000", "MERGE into table \"" + table.def().name() + "\", which has no "
                    + "primary key, is not supported");
        }
        final RelTraitSet traits = modify.getTraitSet().replace(EnumerableConvention.INSTANCE);
        return new MeldTableModify(modify.getCluster(), traits, modify.getTable(), modify.getCatalogReader(),
                convert(modify.getInput(), modify.getInput().getTraitSet().replace(EnumerableConvention.INSTANCE)),
                modify.getOperation(), modify.getUpdateColumnList(), modify.getSourceExpressionList(),
                modify.isFlattened());
    }
}
