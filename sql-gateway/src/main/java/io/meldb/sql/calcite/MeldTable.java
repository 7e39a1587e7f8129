package io.meldb.sql.calcite;

import io.meldb.sql.catalog.ColumnDef;
import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;
import org.apache.calcite.adapter.java.AbstractQueryableTable;
import org.apache.calcite.linq4j.QueryProvider;
import org.apache.calcite.linq4j.Queryable;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.TableModify;
import org.apache.calcite.rel.logical.LogicalTableModify;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.schema.ModifiableTable;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.TranslatableTable;
import org.apache.calcite.sql.type.SqlTypeName;

import java.util.Collection;
import java.util.List;

/**
 * A table of the catalog as Calcite sees it: its row type, a {@link MeldTableScan} to read it and a
 * {@link MeldTableModify} (through {@link MeldTableModifyRule}) to write it. Rows never pass through Calcite's
 * stock collection-based modify.
 */
public final class MeldTable extends AbstractQueryableTable implements TranslatableTable, ModifiableTable {
    private final MeldSchema schema;
    private final TableDef def;

    MeldTable(final MeldSchema schema, final TableDef def) {
        super(Object[].class);
        this.schema = schema;
        this.def = def;
    }

    public TableDef def() {
        return def;
    }

    public MeldSchema schema() {
        return schema;
    }

    @Override
    public RelDataType getRowType(final RelDataTypeFactory typeFactory) {
        final RelDataTypeFactory.Builder builder = typeFactory.builder();
        for (ColumnDef c : def.columns()) {
            builder.add(c.name(), relType(typeFactory, c.type())).nullable(c.nullable());
        }
        return builder.build();
    }

    static RelDataType relType(final RelDataTypeFactory typeFactory, final ColumnType type) {
        return switch (type.type()) {
            case SMALLINT -> typeFactory.createSqlType(SqlTypeName.SMALLINT);
            case INTEGER -> typeFactory.createSqlType(SqlTypeName.INTEGER);
            case BIGINT -> typeFactory.createSqlType(SqlTypeName.BIGINT);
            case DECIMAL -> type.unconstrained() ? PgNumericType.of(typeFactory, false)
                    : typeFactory.createSqlType(SqlTypeName.DECIMAL, type.precision(), type.scale());
            case DOUBLE -> typeFactory.createSqlType(SqlTypeName.DOUBLE);
            // no length for Calcite: its casts would cut longer strings silently; the gateway checks the length
            // when it writes (SQLState 22001)
            case CHAR, VARCHAR -> typeFactory.createSqlType(SqlTypeName.VARCHAR);
            case BOOLEAN -> typeFactory.createSqlType(SqlTypeName.BOOLEAN);
            case DATE -> typeFactory.createSqlType(SqlTypeName.DATE);
            case TIMESTAMP -> typeFactory.createSqlType(SqlTypeName.TIMESTAMP, 3);
            case REAL -> typeFactory.createSqlType(SqlTypeName.REAL);
            case TIME -> typeFactory.createSqlType(SqlTypeName.TIME, 3);
            case TIMESTAMPTZ -> typeFactory.createSqlType(SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE, 3);
            case TEXT, JSON -> typeFactory.createSqlType(SqlTypeName.VARCHAR);
            case BYTEA -> typeFactory.createSqlType(SqlTypeName.VARBINARY);
            case UUID -> typeFactory.createSqlType(SqlTypeName.VARCHAR, SqlType.UUID_MARKER_LENGTH);
        };
    }

    @Override
    public RelNode toRel(final RelOptTable.ToRelContext context, final RelOptTable relOptTable) {
        final RelOptCluster cluster = context.getCluster();
        return new MeldTableScan(cluster, relOptTable, this, ScanSpec.FULL);
    }

    @Override
    public TableModify toModificationRel(final RelOptCluster cluster, final RelOptTable table,
                                         final Prepare.CatalogReader catalogReader, final RelNode child,
                                         final TableModify.Operation operation, final List<String> updateColumnList,
                                         final List<RexNode> sourceExpressionList, final boolean flattened) {
        MeldTableScan.registerRules(cluster.getPlanner());
        if (operation == TableModify.Operation.INSERT || operation == TableModify.Operation.UPDATE) {
            MeldDefaults.checkGeneratedAlways(def, child,
                    operation == TableModify.Operation.UPDATE ? updateColumnList : null);
        }
        return LogicalTableModify.create(table, catalogReader, child, operation, updateColumnList,
                sourceExpressionList, flattened);
    }

    @Override
    public Collection getModifiableCollection() {
        return null; // writes go through MeldTableModify into the transaction
    }

    @Override
    public <T> Queryable<T> asQueryable(final QueryProvider queryProvider, final SchemaPlus schemaPlus,
                                        final String tableName) {
        throw new UnsupportedOperationException("MeldDB tables are read through MeldTableScan");
    }

    /** Calcite asks tables for their column defaults through this ({@link MeldDefaults}). */
    @Override
    public <C> C unwrap(final Class<C> aClass) {
        if (aClass == org.apache.calcite.sql2rel.InitializerExpressionFactory.class) {
            return aClass.cast(new MeldDefaults(def));
        }
        return super.unwrap(aClass);
    }

    @Override
    public String toString() {
        return "MeldTable(" + def.name() + ")";
    }
}
