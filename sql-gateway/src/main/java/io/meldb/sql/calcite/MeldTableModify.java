package io.meldb.sql.calcite;

import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableRelImplementor;
import org.apache.calcite.adapter.enumerable.JavaRowFormat;
import org.apache.calcite.adapter.enumerable.PhysType;
import org.apache.calcite.adapter.enumerable.PhysTypeImpl;
import org.apache.calcite.linq4j.tree.BlockBuilder;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.TableModify;
import org.apache.calcite.rex.RexNode;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * MeldDB's own table modify operator: INSERT, UPDATE and DELETE write rows (and their index entries) into the
 * running transaction through {@link MeldRuntime#modify}; the result is the row count. Replaces Calcite's
 * {@code EnumerableTableModify}, which only knows INSERT and DELETE on Java collections.
 */
public final class MeldTableModify extends TableModify implements EnumerableRel {
    private static final Method MODIFY = MeldTableScan.runtimeMethod("modify");

    MeldTableModify(final RelOptCluster cluster, final RelTraitSet traits, final RelOptTable table,
                    final Prepare.CatalogReader catalogReader, final RelNode input, final Operation operation,
                    final List<String> updateColumnList, final List<RexNode> sourceExpressionList,
                    final boolean flattened) {
        super(cluster, traits, table, catalogReader, input, operation, updateColumnList, sourceExpressionList,
                flattened);
    }

    @Override
    public RelNode copy(final RelTraitSet traitSet, final List<RelNode> inputs) {
        return new MeldTableModify(getCluster(), traitSet, getTable(), getCatalogReader(), sole(inputs),
                getOperation(), getUpdateColumnList(), getSourceExpressionList(), isFlattened());
    }

    @Override
    public Result implement(final EnumerableRelImplementor implementor, final Prefer pref) {
        final MeldTable table = getTable().unwrap(MeldTable.class);
        final BlockBuilder builder = new BlockBuilder();
        final Result input = implementor.visitChild(this, 0, (EnumerableRel) getInput(), Prefer.ARRAY);
        Expression rows = builder.append("rows", input.block);
        final JavaRowFormat format = input.physType.getFormat();
        if (format != JavaRowFormat.ARRAY && format != JavaRowFormat.SCALAR) {
            rows = builder.append("arrays", input.physType.convertTo(rows, JavaRowFormat.ARRAY));
        }
        final int[] updateColumns = new int[getUpdateColumnList() == null ? 0 : getUpdateColumnList().size()];
        for (int i = 0; i < updateColumns.length; i++) {
            updateColumns[i] = table.def().columnIndex(getUpdateColumnList().get(i));
        }
        final List<Expression> updateColumnExpressions = new ArrayList<>();
        for (int c : updateColumns) {
            updateColumnExpressions.add(Expressions.constant(c, int.class));
        }
        final Expression call = Expressions.call(MODIFY,
                DataContext.ROOT,
                Expressions.constant(table.schema().name()),
                Expressions.constant(table.def().id(), int.class),
                Expressions.constant(getOperation().name()),
                Expressions.newArrayInit(int.class, updateColumnExpressions),
                rows);
        builder.add(Expressions.return_(null, call));
        final PhysType physType = PhysTypeImpl.of(implementor.getTypeFactory(), getRowType(),
                pref.prefer(JavaRowFormat.SCALAR));
        return implementor.result(physType, builder.toBlock());
    }
}
