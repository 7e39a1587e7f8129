package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.ViewDef;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.TableModify;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.schema.ModifiableTable;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.impl.ViewTable;
import org.apache.calcite.sql.type.SqlTypeName;

import java.util.Collection;
import java.util.List;

/**
 * A catalog view as Calcite's {@link ViewTable}: Calcite expands the stored query in place of the view's name
 * (in the statement's own planner, with the connection's dialect) and casts it to the row type the view had when
 * it was made.
 */
final class MeldView {
    private MeldView() {
    }

    static ViewTable of(final ViewDef def) {
        return new ReadOnly(def);
    }

    /**
     * {@code rel} unless it writes a view: UPDATE and DELETE reach the planner with a view as their target (only
     * INSERT goes through {@link ModifiableTable}), and are refused here with 0A000.
     */
    static RelNode refuseWrite(final RelNode rel) {
        if (rel instanceof TableModify m) {
            final ReadOnly view = m.getTable().unwrap(ReadOnly.class);
            if (view != null) {
                throw view.refused(m.getOperation());
            }
        }
        return rel;
    }

    /**
     * The view, refusing INSERT, UPDATE, DELETE and MERGE with PostgreSQL's 0A000 when Calcite converts the
     * statement (MeldDB's views are not updatable): without it the statement would fail to plan.
     */
    private static final class ReadOnly extends ViewTable implements ModifiableTable {
        private final String name;

        ReadOnly(final ViewDef def) {
            super(Object[].class, factory -> rowType(def, factory), def.sql(), List.of(def.schema()),
                    List.of(def.schema(), def.name()));
            this.name = def.name();
        }

        @Override
        public Collection<?> getModifiableCollection() {
            throw refused(null);
        }

        @Override
        public TableModify toModificationRel(final RelOptCluster cluster, final RelOptTable table,
                                             final Prepare.CatalogReader catalogReader, final RelNode child,
                                             final TableModify.Operation operation,
                                             final List<String> updateColumnList,
                                             final List<RexNode> sourceExpressionList, final boolean flattened) {
            throw refused(operation);
        }

        private SqlStateException refused(final TableModify.Operation operation) {
            final String verb = operation == null ? "change" : switch (operation) {
                case INSERT -> "insert into";
                case UPDATE -> "update";
                case DELETE -> "delete from";
                case MERGE -> "merge into";
            };
            return new SqlStateException("0A000", "cannot " + verb + " view \"" + name + "\" (MeldDB's views "
                    + "are not updatable)");
        }
    }

    private static RelDataType rowType(final ViewDef def, final RelDataTypeFactory factory) {
        final RelDataTypeFactory.Builder b = factory.builder();
        for (ViewDef.Column c : def.columns()) {
            SqlTypeName name = SqlTypeName.getNameForJdbcType(c.jdbcType());
            if (name == null) {
                name = SqlTypeName.ANY;
            }
            final RelDataType type;
            if (name.allowsPrecScale(true, true) && c.precision() > 0) {
                type = factory.createSqlType(name, c.precision(), c.scale());
            } else if (name.allowsPrecNoScale() && c.precision() > 0) {
                type = factory.createSqlType(name, c.precision());
            } else {
                type = factory.createSqlType(name);
            }
            b.add(c.name(), factory.createTypeWithNullability(type, c.nullable()));
        }
        return b.build();
    }
}
