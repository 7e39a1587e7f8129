package io.meldb.sql.pg.catalog;

import io.meldb.sql.calcite.MeldTxnContext;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.ScannableTable;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.type.SqlTypeName;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * One table of {@code information_schema} or {@code pg_catalog} ({@link SystemSchemas}): a fixed list of
 * columns, and rows computed at every scan from the catalog as the statement's transaction sees it, through a
 * {@link PgCatalogView} (so OIDs, names and nullability are the ones psql's and pgjdbc's queries get). Column
 * names are PostgreSQL's, stored upper case (see {@link SystemSchemas} for why).
 *
 * @param <T> what one row is computed from (a relation, a column, a key column, ...)
 */
final class SystemTable<T> extends AbstractTable implements ScannableTable {
    /** A column: its PostgreSQL name (lower case), Calcite type, whether it may be null, and its value. */
    record Column<T>(String name, SqlTypeName type, boolean nullable, Function<T, Object> value) {
    }

    /** The columns typed name, by PostgreSQL's catalogs: relname, attname, nspname, typname, ... */
    private static final java.util.Set<String> NAME_COLUMNS = java.util.Set.of("relname", "nspname", "attname",
            "typname", "conname", "proname", "rolname", "usename", "datname", "amname", "collname", "extname",
            "tgname", "spcname", "schemaname", "tablename", "indexname", "sequencename", "viewname", "tableowner",
            "viewowner", "sequenceowner", "indexrelname", "seqrelname", "enumlabel", "lanname", "srvname",
            "evtname", "polname", "pubname", "rulename", "stxname", "oprname", "cfgname", "opcname", "opfname",
            "datcollate", "datctype");

    private final MeldTxnContext context;
    private final List<Column<T>> columns;
    private final Function<PgCatalogView, List<T>> rows;

    private SystemTable(final MeldTxnContext context, final List<Column<T>> columns,
                        final Function<PgCatalogView, List<T>> rows) {
        this.context = context;
        this.columns = List.copyOf(columns);
        this.rows = rows;
    }

    /** A table of the columns added to {@code builder}, whose rows {@code rows} lists. */
    static <T> SystemTable<T> of(final MeldTxnContext context, final Builder<T> builder,
                                 final Function<PgCatalogView, List<T>> rows) {
        return new SystemTable<>(context, builder.columns, rows);
    }

    /** A table with no rows. */
    static SystemTable<Object> empty(final MeldTxnContext context, final Builder<Object> builder) {
        return new SystemTable<>(context, builder.columns, v -> List.of());
    }

    static <T> Builder<T> columns() {
        return new Builder<>();
    }

    /** Collects the columns of a table in order. */
    static final class Builder<T> {
        private final List<Column<T>> columns = new ArrayList<>();

        /** A text column (PostgreSQL's name, text, "char", sql_identifier, character_data, yes_or_no). */
        Builder<T> text(final String name, final Function<T, Object> value) {
            return add(name, SqlTypeName.VARCHAR, false, value);
        }

        Builder<T> nullableText(final String name, final Function<T, Object> value) {
            return add(name, SqlTypeName.VARCHAR, true, value);
        }

        /** A column that is always NULL (MeldDB has nothing to say there). */
        Builder<T> nullText(final String name) {
            return add(name, SqlTypeName.VARCHAR, true, t -> null);
        }

        Builder<T> constant(final String name, final String value) {
            return add(name, SqlTypeName.VARCHAR, false, t -> value);
        }

        /** An oid, int4 or cardinal_number column (Integer values). */
        Builder<T> integer(final String name, final Function<T, Object> value) {
            return add(name, SqlTypeName.INTEGER, false, value);
        }

        Builder<T> nullableInteger(final String name, final Function<T, Object> value) {
            return add(name, SqlTypeName.INTEGER, true, value);
        }

        Builder<T> constant(final String name, final int value) {
            return add(name, SqlTypeName.INTEGER, false, t -> value);
        }

        /** An int2[] column (a list of Short values): pg_constraint's conkey, confkey. */
        Builder<T> smallintArray(final String name, final Function<T, Object> value) {
            return add(name, SqlTypeName.ARRAY, true, value);
        }

        /** An int8 column (Long values). */
        /** A bigint column that is always NULL (a counter MeldDB does not keep). */
        Builder<T> nullBigint(final String name) {
            return add(name, SqlTypeName.BIGINT, true, t -> null);
        }

        Builder<T> bigint(final String name, final Function<T, Object> value) {
            return add(name, SqlTypeName.BIGINT, false, value);
        }

        /** An int2 column (Short values). */
        Builder<T> smallint(final String name, final Function<T, Object> value) {
            return add(name, SqlTypeName.SMALLINT, false, value);
        }

        Builder<T> bool(final String name, final Function<T, Object> value) {
            return add(name, SqlTypeName.BOOLEAN, false, value);
        }

        /** A timestamptz column (the UTC instant in milliseconds, as a Long: MeldDB's TIMESTAMPTZ). */
        Builder<T> timestamptz(final String name, final Function<T, Object> value) {
            return add(name, SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE, false, value);
        }

        Builder<T> constant(final String name, final boolean value) {
            return add(name, SqlTypeName.BOOLEAN, false, t -> value);
        }

        private Builder<T> add(final String name, final SqlTypeName type, final boolean nullable,
                               final Function<T, Object> value) {
            columns.add(new Column<>(name, type, nullable, value));
            return this;
        }
    }

    /** The PostgreSQL names of the columns, in order (lower case). */
    List<String> columnNames() {
        final List<String> out = new ArrayList<>();
        for (Column<T> c : columns) {
            out.add(c.name());
        }
        return out;
    }

    @Override
    public RelDataType getRowType(final RelDataTypeFactory typeFactory) {
        final RelDataTypeFactory.Builder b = typeFactory.builder();
        for (Column<T> c : columns) {
            final RelDataType type = c.type() == SqlTypeName.ARRAY
                    ? typeFactory.createArrayType(typeFactory.createSqlType(SqlTypeName.SMALLINT), -1)
                    : c.type() == SqlTypeName.VARCHAR && isName(c.name())
                    ? typeFactory.createSqlType(SqlTypeName.VARCHAR, io.meldb.sql.calcite.PgNameType.LENGTH)
                    : c.type() == SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE ? typeFactory.createSqlType(c.type(), 3)
                    : typeFactory.createSqlType(c.type());
            b.add(c.name(), typeFactory.createTypeWithNullability(type, c.nullable()));
        }
        return b.build();
    }

    /**
     * Whether a column of this table is of PostgreSQL's name type, as the same column of PostgreSQL's catalog is
     * ({@code pg_class.relname}, {@code pg_attribute.attname}, ...): clients that read an array of names (Sequelize's
     * {@code array_agg(a.attname)}) expect name[], which drivers leave as text.
     */
    private boolean isName(final String column) {
        return NAME_COLUMNS.contains(column);
    }

    @Override
    public Enumerable<Object[]> scan(final DataContext root) {
        final PgCatalogView view = PgCatalogView.of(context.catalog(), PgCatalogView.sessionUser(context),
                io.meldb.sql.catalog.Catalog.PUBLIC);
        final List<Object[]> out = new ArrayList<>();
        for (T source : rows.apply(view)) {
            final Object[] row = new Object[columns.size()];
            for (int i = 0; i < row.length; i++) {
                row[i] = columns.get(i).value().apply(source);
            }
            out.add(row);
        }
        return Linq4j.asEnumerable(out);
    }
}
