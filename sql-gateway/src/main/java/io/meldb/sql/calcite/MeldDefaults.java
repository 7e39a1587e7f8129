package io.meldb.sql.calcite;

import io.meldb.sql.catalog.ColumnDef;
import io.meldb.sql.catalog.ColumnDefault;
import io.meldb.sql.catalog.TableDef;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.rel.type.RelDataType;
import io.meldb.sql.SqlStateException;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.validate.SqlUserDefinedFunction;
import java.util.List;
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

    /**
     * Refuses (428C9) an INSERT that gives a GENERATED ALWAYS identity column a value of its own, or an UPDATE
     * that sets one, as PostgreSQL does: in the planned INSERT, the column's expression must be the default this
     * class made (a {@code nextval} call), nothing the statement wrote.
     */
    static void checkGeneratedAlways(final TableDef def, final RelNode source, final List<String> updateColumns) {
        for (int i = 0; i < def.columns().size(); i++) {
            final ColumnDef c = def.columns().get(i);
            if (c.identity() != ColumnDef.Identity.ALWAYS) {
                continue;
            }
            final boolean explicit;
            if (updateColumns != null) {
                explicit = updateColumns.contains(c.name());
            } else {
                explicit = !(source instanceof Project p) || !isSequenceCall(p.getProjects().get(i));
            }
            if (explicit) {
                throw new SqlStateException("428C9", "cannot " + (updateColumns != null ? "update" : "insert a "
                        + "non-DEFAULT value into") + " column \"" + c.name() + "\": it is an identity column "
                        + "defined as GENERATED ALWAYS");
            }
        }
    }

    private static boolean isSequenceCall(final RexNode e) {
        RexNode n = e;
        while (n.getKind() == SqlKind.CAST) {
            n = ((RexCall) n).getOperands().get(0);
        }
        return n instanceof RexCall call && call.getOperator() instanceof SqlUserDefinedFunction f
                && f.getFunction() instanceof SequenceFunction;
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
