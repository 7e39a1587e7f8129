package io.meldb.sql.calcite;

import io.meldb.sql.catalog.IndexDef;
import io.meldb.sql.catalog.TableDef;
import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.enumerable.EnumerableConvention;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableRelImplementor;
import org.apache.calcite.adapter.enumerable.JavaRowFormat;
import org.apache.calcite.adapter.enumerable.PhysType;
import org.apache.calcite.adapter.enumerable.PhysTypeImpl;
import org.apache.calcite.linq4j.tree.BlockBuilder;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.validate.SqlValidatorUtil;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An index nested-loop join: for every row of its input (the outer side) it looks the rows of a MeldDB table up
 * by key (its primary key or one index), with the key's leading columns taken from the outer row or from
 * constants and parameters of the query. Instead of a hash join that reads the whole table, a join on a key
 * reads only the rows that match. The output is the outer row followed by all the table's columns (INNER, LEFT),
 * or the outer row alone (SEMI). Built by {@link MeldLookupJoinRule}; runs {@link MeldLookups#join}.
 */
public final class MeldLookupJoin extends SingleRel implements EnumerableRel {
    private final MeldTable table;
    /** null: the primary key; else the index name. */
    private final String index;
    /** Per key column (in key order): the outer field that gives its value, or -1 - position in constants. */
    private final int[] keySources;
    /** Literals and parameters that give key values. */
    private final List<RexNode> constants;
    private final JoinRelType joinType;
    private final org.apache.calcite.plan.RelOptTable relOptTable;

    MeldLookupJoin(final RelOptCluster cluster, final RelTraitSet traits, final RelNode outer,
                   final org.apache.calcite.plan.RelOptTable relOptTable, final MeldTable table, final String index,
                   final int[] keySources, final List<RexNode> constants, final JoinRelType joinType) {
        super(cluster, traits, outer);
        this.relOptTable = relOptTable;
        this.table = table;
        this.index = index;
        this.keySources = keySources;
        this.constants = constants;
        this.joinType = joinType;
    }

    static MeldLookupJoin create(final RelNode outer, final org.apache.calcite.plan.RelOptTable relOptTable,
                                 final MeldTable table, final String index, final int[] keySources,
                                 final List<RexNode> constants, final JoinRelType joinType) {
        final RelOptCluster cluster = outer.getCluster();
        return new MeldLookupJoin(cluster, cluster.traitSetOf(EnumerableConvention.INSTANCE), outer, relOptTable,
                table, index, keySources, constants, joinType);
    }

    @Override
    public RelNode copy(final RelTraitSet traitSet, final List<RelNode> inputs) {
        return new MeldLookupJoin(getCluster(), traitSet, inputs.get(0), relOptTable, table, index, keySources,
                constants, joinType);
    }

    @Override
    protected RelDataType deriveRowType() {
        if (joinType == JoinRelType.SEMI) {
            return input.getRowType();
        }
        return SqlValidatorUtil.deriveJoinRowType(input.getRowType(), relOptTable.getRowType(), joinType,
                getCluster().getTypeFactory(), null, List.of());
    }

    @Override
    public RelWriter explainTerms(final RelWriter pw) {
        final TableDef def = table.def();
        final int[] columns = keyColumns();
        final List<String> keys = new ArrayList<>();
        for (int i = 0; i < keySources.length; i++) {
            final String column = def.columns().get(columns[i]).name();
            keys.add(column + " = " + (keySources[i] >= 0 ? "$" + keySources[i]
                    : String.valueOf(MeldFilterRule.stripCast(constants.get(-1 - keySources[i])))));
        }
        return super.explainTerms(pw)
                .item("table", relOptTable.getQualifiedName())
                .item("index", index == null ? "PRIMARY KEY" : index)
                .item("key", String.join(" AND ", keys))
                .item("joinType", joinType.lowerName);
    }

    /** Rows per outer row: one for a whole primary key, a few otherwise. */
    private double fanOut() {
        return index == null && keySources.length == table.def().primaryKey().length ? 1 : 10;
    }

    @Override
    public double estimateRowCount(final RelMetadataQuery mq) {
        final double outer = mq.getRowCount(input);
        return joinType == JoinRelType.SEMI ? outer * 0.5 : outer * fanOut();
    }

    @Override
    public RelOptCost computeSelfCost(final RelOptPlanner planner, final RelMetadataQuery mq) {
        final double outer = mq.getRowCount(input);
        // one key lookup per outer row, a few times a row's cost
        final double rows = estimateRowCount(mq) + 3 * outer;
        return planner.getCostFactory().makeCost(rows, rows, outer);
    }

    int[] keyColumns() {
        if (index == null) {
            return table.def().primaryKey();
        }
        return table.def().index(index).columns();
    }

    @Override
    public Result implement(final EnumerableRelImplementor implementor, final Prefer pref) {
        final BlockBuilder builder = new BlockBuilder();
        final Result outer = implementor.visitChild(this, 0, (EnumerableRel) input, Prefer.ARRAY);
        Expression rows = builder.append("outer", outer.block);
        if (outer.format != JavaRowFormat.ARRAY) {
            rows = outer.physType.convertTo(rows, JavaRowFormat.ARRAY);
        }
        final TableDef def = table.def();
        final int[] columns = keyColumns();
        final List<Expression> values = new ArrayList<>();
        for (RexNode c : constants) {
            int column = -1;
            for (int i = 0; i < keySources.length; i++) {
                if (keySources[i] == -1 - values.size()) {
                    column = columns[i];
                }
            }
            values.add(MeldTableScan.valueExpression(c, def.columns().get(column).type()));
        }
        final int indexId = index == null ? 0 : indexId(def);
        final Expression call = Expressions.call(MeldTableScan.runtimeMethod(MeldLookups.class, "join"),
                DataContext.ROOT,
                Expressions.constant(table.schema().name()),
                Expressions.constant(def.id(), int.class),
                Expressions.constant(indexId, int.class),
                rows,
                Expressions.constant(keySources, int[].class),
                Expressions.newArrayInit(Object.class, values),
                Expressions.constant(joinType.ordinal(), int.class),
                Expressions.constant(def.columns().size(), int.class));
        builder.add(Expressions.return_(null, call));
        final PhysType physType = PhysTypeImpl.of(implementor.getTypeFactory(), getRowType(), JavaRowFormat.ARRAY,
                false);
        return implementor.result(physType, builder.toBlock());
    }

    private int indexId(final TableDef def) {
        final IndexDef i = def.index(index);
        return i.id();
    }

    @Override
    public String toString() {
        return "MeldLookupJoin(" + table.def().name() + ", " + Arrays.toString(keySources) + ")";
    }
}
