package io.meldb.sql.calcite;

import io.meldb.sql.catalog.ColumnDef;
import io.meldb.sql.catalog.ColumnDefault;
import io.meldb.sql.catalog.TableDef;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.schema.ColumnStrategy;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql2rel.InitializerContext;
import org.apache.calcite.sql2rel.NullInitializerExpressionFactory;

/**
 * The DEFAULTs of a table's columns as Calcite's INSERT planning asks for them: for a column an INSERT omits or
 * gives as {@code DEFAULT}, a constant becomes a literal, the clock Calcite's own CURRENT_TIMESTAMP or
 * CURRENT_DATE (read at execution, in UTC), and a sequence a {@code nextval} call ({@link SequenceFunction}),
 * evaluated once per row; each cast to the column's type.
 */
final class MeldDefaults extends NullInitializerExpressionFactory {
    private final TableDef def;

    MeldDefaults(final TableDef def) {
        this.def = def;
    }

    @Override
    public ColumnStrategy generationStrategy(final RelOptTable table, final int column) {
        final ColumnDef c = def.columns().get(column);
        if (c.dflt() != null) {
            return ColumnStrategy.DEFAULT;
        }
        return c.nullable() ? ColumnStrategy.NULLABLE : ColumnStrategy.NOT_NULLABLE;
    }

    @Override
    public RexNode newColumnDefaultValue(final RelOptTable table, final int column,
                                         final InitializerContext context) {
        final ColumnDef c = def.columns().get(column);
        final ColumnDefault d = c.dflt();
        if (d == null) {
            return super.newColumnDefaultValue(table, column, context);
        }
        final RexBuilder rex = context.getRexBuilder();
        final RelDataType type = table.getRowType().getFieldList().get(column).getType();
        if (d.kind() == ColumnDefault.Kind.CONSTANT) {
            return d.value() == null ? rex.makeNullLiteral(type) : rex.makeLiteral(d.value(), type, true);
        }
        final SqlNode parsed = context.parseExpression(MeldLex.PARSER, d.calciteSql());
        final SqlNode validated = context.validateExpression(table.getRowType(), parsed);
        return rex.makeCast(type, context.convertExpression(validated), true, false);
    }
}
