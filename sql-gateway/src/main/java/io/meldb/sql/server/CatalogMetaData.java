package io.meldb.sql.server;

import io.meldb.sql.catalog.Catalog;
import io.meldb.sql.catalog.ColumnDef;
import io.meldb.sql.catalog.IndexDef;
import io.meldb.sql.catalog.LikePattern;
import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;
import io.meldb.sql.pg.catalog.SystemSchemas;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.Table;

import java.sql.DatabaseMetaData;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

import static io.meldb.sql.server.MetaResults.big;
import static io.meldb.sql.server.MetaResults.bool;
import static io.meldb.sql.server.MetaResults.integer;
import static io.meldb.sql.server.MetaResults.small;
import static io.meldb.sql.server.MetaResults.text;

/**
 * The rows of JDBC's {@code DatabaseMetaData} catalog calls (getCatalogs, getSchemas, getTableTypes, getTables,
 * getColumns, getPrimaryKeys, getIndexInfo, getTypeInfo) answered from MeldDB's catalog tree, in the column order
 * and row order that the JDBC documentation gives. Users' tables come from the {@link Catalog} (declared lengths,
 * precision and scale, defaults, keys and indexes); the read-only system tables of {@code information_schema} and
 * {@code pg_catalog} from their Calcite row types, as {@code SYSTEM TABLE}s. The catalog is named
 * {@link Catalog#DATABASE}. Views are of type {@code VIEW}, with the columns their query answered.
 */
final class CatalogMetaData {
    static final String TABLE = "TABLE";
    static final String SYSTEM_TABLE = "SYSTEM TABLE";
    static final String VIEW = "VIEW";

    static final MetaResults CATALOGS = new MetaResults(text("TABLE_CAT"));
    static final MetaResults SCHEMAS = new MetaResults(text("TABLE_SCHEM"), text("TABLE_CATALOG"));
    static final MetaResults TABLE_TYPES = new MetaResults(text("TABLE_TYPE"));
    static final MetaResults TABLES = new MetaResults(text("TABLE_CAT"), text("TABLE_SCHEM"), text("TABLE_NAME"),
            text("TABLE_TYPE"), text("REMARKS"), text("TYPE_CAT"), text("TYPE_SCHEM"), text("TYPE_NAME"),
            text("SELF_REFERENCING_COL_NAME"), text("REF_GENERATION"));
    static final MetaResults COLUMNS = new MetaResults(text("TABLE_CAT"), text("TABLE_SCHEM"), text("TABLE_NAME"),
            text("COLUMN_NAME"), integer("DATA_TYPE"), text("TYPE_NAME"), integer("COLUMN_SIZE"),
            integer("BUFFER_LENGTH"), integer("DECIMAL_DIGITS"), integer("NUM_PREC_RADIX"), integer("NULLABLE"),
            text("REMARKS"), text("COLUMN_DEF"), integer("SQL_DATA_TYPE"), integer("SQL_DATETIME_SUB"),
            integer("CHAR_OCTET_LENGTH"), integer("ORDINAL_POSITION"), text("IS_NULLABLE"), text("SCOPE_CATALOG"),
            text("SCOPE_SCHEMA"), text("SCOPE_TABLE"), small("SOURCE_DATA_TYPE"), text("IS_AUTOINCREMENT"),
            text("IS_GENERATEDCOLUMN"));
    static final MetaResults PRIMARY_KEYS = new MetaResults(text("TABLE_CAT"), text("TABLE_SCHEM"),
            text("TABLE_NAME"), text("COLUMN_NAME"), small("KEY_SEQ"), text("PK_NAME"));
    static final MetaResults INDEX_INFO = new MetaResults(text("TABLE_CAT"), text("TABLE_SCHEM"),
            text("TABLE_NAME"), bool("NON_UNIQUE"), text("INDEX_QUALIFIER"), text("INDEX_NAME"), small("TYPE"),
            small("ORDINAL_POSITION"), text("COLUMN_NAME"), text("ASC_OR_DESC"), big("CARDINALITY"), big("PAGES"),
            text("FILTER_CONDITION"));
    static final MetaResults TYPE_INFO = new MetaResults(text("TYPE_NAME"), integer("DATA_TYPE"),
            integer("PRECISION"), text("LITERAL_PREFIX"), text("LITERAL_SUFFIX"), text("CREATE_PARAMS"),
            small("NULLABLE"), bool("CASE_SENSITIVE"), small("SEARCHABLE"), bool("UNSIGNED_ATTRIBUTE"),
            bool("FIXED_PREC_SCALE"), bool("AUTO_INCREMENT"), text("LOCAL_TYPE_NAME"), small("MINIMUM_SCALE"),
            small("MAXIMUM_SCALE"), integer("SQL_DATA_TYPE"), integer("SQL_DATETIME_SUB"), integer("NUM_PREC_RADIX"));

    static final String DB = Catalog.DATABASE;
    private static final List<String> SYSTEM = List.of(SystemSchemas.INFORMATION_SCHEMA, SystemSchemas.PG_CATALOG);

    final Catalog catalog;
    /** The connection's Calcite root schema: where the system tables' row types are. */
    private final SchemaPlus root;
    private final RelDataTypeFactory types;

    CatalogMetaData(final Catalog catalog, final SchemaPlus root, final RelDataTypeFactory types) {
        this.catalog = catalog;
        this.root = root;
        this.types = types;
    }

    static List<Object[]> catalogs() {
        return List.<Object[]>of(new Object[] {DB});
    }

    static List<Object[]> tableTypes() {
        return List.of(new Object[] {SYSTEM_TABLE}, new Object[] {TABLE}, new Object[] {VIEW});
    }

    List<Object[]> schemas(final String catalogName, final String schemaPattern) {
        final List<Object[]> rows = new ArrayList<>();
        if (catalogMatches(catalogName)) {
            for (String s : allSchemas()) {
                if (matches(schemaPattern, s)) {
                    rows.add(new Object[] {s, DB});
                }
            }
        }
        return rows;
    }

    List<Object[]> tables(final String catalogName, final String schemaPattern, final String tablePattern,
                          final List<String> typeList) {
        final List<Object[]> rows = new ArrayList<>();
        if (!catalogMatches(catalogName)) {
            return rows;
        }
        final boolean wantTables = typeList == null || typeList.contains(TABLE);
        final boolean wantSystem = typeList == null || typeList.contains(SYSTEM_TABLE);
        final boolean wantViews = typeList == null || typeList.contains(VIEW);
        for (String schema : allSchemas()) {
            if (!matches(schemaPattern, schema)) {
                continue;
            }
            final boolean system = SYSTEM.contains(schema);
            if (!system && wantViews) {
                for (String name : catalog.views(DB, schema).keySet()) {
                    if (matches(tablePattern, name)) {
                        rows.add(new Object[] {DB, schema, name, VIEW, null, null, null, null, null, null});
                    }
                }
            }
            if (system ? !wantSystem : !wantTables) {
                continue;
            }
            for (String name : tableNames(schema)) {
                if (matches(tablePattern, name)) {
                    rows.add(new Object[] {DB, schema, name, system ? SYSTEM_TABLE : TABLE, null, null, null, null,
                            null, null});
                }
            }
        }
        // JDBC: ordered by TABLE_TYPE, TABLE_CAT, TABLE_SCHEM and TABLE_NAME
        rows.sort(Comparator.comparing((Object[] r) -> (String) r[3]).thenComparing(r -> (String) r[1])
                .thenComparing(r -> (String) r[2]));
        return rows;
    }

    List<Object[]> columns(final String catalogName, final String schemaPattern, final String tablePattern,
                           final String columnPattern) {
        final List<Object[]> rows = new ArrayList<>();
        if (!catalogMatches(catalogName)) {
            return rows;
        }
        for (String schema : allSchemas()) {
            if (!matches(schemaPattern, schema)) {
                continue;
            }
            for (String name : tableNames(schema)) {
                if (!matches(tablePattern, name)) {
                    continue;
                }
                final TableDef t = SYSTEM.contains(schema) ? null : catalog.table(DB, schema, name);
                if (t != null) {
                    userColumns(t, columnPattern, rows);
                } else {
                    systemColumns(schema, name, columnPattern, rows);
                }
            }
            if (!SYSTEM.contains(schema)) {
                for (io.meldb.sql.catalog.ViewDef v : catalog.views(DB, schema).values()) {
                    if (matches(tablePattern, v.name())) {
                        viewColumns(v, columnPattern, rows);
                    }
                }
            }
        }
        return rows;
    }

    private void userColumns(final TableDef t, final String columnPattern, final List<Object[]> rows) {
        for (int i = 0; i < t.columns().size(); i++) {
            final ColumnDef c = t.columns().get(i);
            if (!matches(columnPattern, c.name())) {
                continue;
            }
            final ColumnType type = c.type();
            final boolean string = type.type().isString();
            // as PostgreSQL's driver says: SERIAL, identity and any nextval(...) default count as auto-increment
            final boolean generated = c.identity() != ColumnDef.Identity.NONE
                    || (c.dflt() != null && c.dflt().kind() == io.meldb.sql.catalog.ColumnDefault.Kind.NEXTVAL);
            rows.add(column(t.schema(), t.name(), c.name(), JdbcColumnTypes.jdbcType(type.type()),
                    JdbcColumnTypes.name(type.type()), JdbcColumnTypes.size(type), JdbcColumnTypes.decimalDigits(type),
                    JdbcColumnTypes.radix(type.type()), c.nullable(), c.dflt() == null ? null : c.dflt().sql(),
                    string ? (int) Math.min(Integer.MAX_VALUE, 4L * type.precision()) : null, i + 1, generated));
        }
    }

    private static void viewColumns(final io.meldb.sql.catalog.ViewDef v, final String columnPattern,
                                    final List<Object[]> rows) {
        for (int i = 0; i < v.columns().size(); i++) {
            final io.meldb.sql.catalog.ViewDef.Column c = v.columns().get(i);
            if (!matches(columnPattern, c.name())) {
                continue;
            }
            final ColumnType type = c.type();
            rows.add(column(v.schema(), v.name(), c.name(), JdbcColumnTypes.jdbcType(type.type()),
                    JdbcColumnTypes.name(type.type()), JdbcColumnTypes.size(type), JdbcColumnTypes.decimalDigits(type),
                    JdbcColumnTypes.radix(type.type()), c.nullable(), null,
                    type.type().isString() ? (int) Math.min(Integer.MAX_VALUE, 4L * type.precision()) : null, i + 1,
                    false));
        }
    }

    private void systemColumns(final String schema, final String name, final String columnPattern,
                               final List<Object[]> rows) {
        final Table table = root.getSubSchema(schema).getTable(name);
        if (table == null) {
            return;
        }
        final RelDataType rowType = table.getRowType(types);
        for (RelDataTypeField f : rowType.getFieldList()) {
            if (!matches(columnPattern, f.getName())) {
                continue;
            }
            final RelDataType t = f.getType();
            final boolean precise = t.getPrecision() >= 0 && t.getSqlTypeName().allowsPrec();
            final boolean scaled = t.getSqlTypeName().allowsScale();
            rows.add(column(schema, name, f.getName(), t.getSqlTypeName().getJdbcOrdinal(),
                    t.getSqlTypeName().getName(), precise ? t.getPrecision() : null, scaled ? t.getScale() : null,
                    null, t.isNullable(), null, null, f.getIndex() + 1, false));
        }
    }

    private static Object[] column(final String schema, final String table, final String name, final int jdbcType,
                                   final String typeName, final Integer size, final Integer digits,
                                   final Integer radix, final boolean nullable, final String dflt,
                                   final Integer octets, final int position, final boolean generated) {
        return new Object[] {DB, schema, table, name, jdbcType, typeName, size, null, digits, radix,
                nullable ? DatabaseMetaData.columnNullable : DatabaseMetaData.columnNoNulls, null, dflt, null, null,
                octets, position, nullable ? "YES" : "NO", null, null, null, null, generated ? "YES" : "NO", "NO"};
    }

    List<Object[]> primaryKeys(final String catalogName, final String schema, final String table) {
        final List<Object[]> rows = new ArrayList<>();
        for (TableDef t : userTables(catalogName, schema, table)) {
            for (int k = 0; k < t.primaryKey().length; k++) {
                rows.add(new Object[] {DB, t.schema(), t.name(), t.columns().get(t.primaryKey()[k]).name(),
                        (short) (k + 1), t.name() + "_pkey"});
            }
        }
        rows.sort(Comparator.comparing((Object[] r) -> (String) r[3])); // JDBC: ordered by COLUMN_NAME
        return rows;
    }

    List<Object[]> indexInfo(final String catalogName, final String schema, final String table,
                             final boolean uniqueOnly) {
        final List<Object[]> rows = new ArrayList<>();
        for (TableDef t : userTables(catalogName, schema, table)) {
            if (t.primaryKey().length > 0) {
                index(t, t.name() + "_pkey", true, t.primaryKey(), rows);
            }
            for (IndexDef i : t.indexes()) {
                if (!i.hidden() && (i.unique() || !uniqueOnly)) { // a foreign key's own index is listed nowhere
                    index(t, i.name(), i.unique(), i.columns(), rows);
                }
            }
        }
        // JDBC: ordered by NON_UNIQUE, TYPE, INDEX_NAME, and ORDINAL_POSITION
        rows.sort(Comparator.comparing((Object[] r) -> (Boolean) r[3]).thenComparing(r -> (String) r[5])
                .thenComparing(r -> (Short) r[7]));
        return rows;
    }

    private static void index(final TableDef t, final String name, final boolean unique, final int[] columns,
                              final List<Object[]> rows) {
        for (int k = 0; k < columns.length; k++) {
            rows.add(new Object[] {DB, t.schema(), t.name(), !unique, null, name,
                    DatabaseMetaData.tableIndexOther, (short) (k + 1), t.columns().get(columns[k]).name(), "A", 0L,
                    0L, null});
        }
    }

    static List<Object[]> typeInfo() {
        final List<Object[]> rows = new ArrayList<>();
        for (SqlType t : SqlType.values()) {
            final String prefix = JdbcColumnTypes.literalPrefix(t);
            rows.add(new Object[] {JdbcColumnTypes.name(t), JdbcColumnTypes.jdbcType(t), JdbcColumnTypes.maxSize(t),
                    prefix, prefix == null ? null : "'", JdbcColumnTypes.createParams(t),
                    (short) DatabaseMetaData.typeNullable, t.isString(), (short) DatabaseMetaData.typeSearchable,
                    JdbcColumnTypes.radix(t) == null ? null : false, false, false, JdbcColumnTypes.name(t), (short) 0,
                    JdbcColumnTypes.maxScale(t), null, null, JdbcColumnTypes.radix(t)});
        }
        // JDBC: ordered by DATA_TYPE
        rows.sort(Comparator.comparing((Object[] r) -> (Integer) r[1]));
        return rows;
    }

    /** The users' tables that getPrimaryKeys and getIndexInfo name (exact names; a null schema is any schema). */
    List<TableDef> userTables(final String catalogName, final String schema, final String table) {
        final List<TableDef> out = new ArrayList<>();
        if (!catalogMatches(catalogName) || table == null) {
            return out;
        }
        for (String s : catalog.schemaNames(DB)) {
            if (schema == null || schema.equals(s)) {
                final TableDef t = catalog.table(DB, s, table);
                if (t != null) {
                    out.add(t);
                }
            }
        }
        return out;
    }

    private TreeSet<String> allSchemas() {
        final TreeSet<String> names = new TreeSet<>(catalog.schemaNames(DB));
        names.addAll(SYSTEM);
        return names;
    }

    private List<String> tableNames(final String schema) {
        if (SYSTEM.contains(schema)) {
            final SchemaPlus s = root.getSubSchema(schema);
            return s == null ? List.of() : new ArrayList<>(new TreeSet<>(s.getTableNames()));
        }
        final Map<String, TableDef> tables = catalog.tables(DB, schema);
        return new ArrayList<>(tables.keySet());
    }

    /** JDBC: a null catalog means any; "" means without a catalog, which no MeldDB object is. */
    private static boolean catalogMatches(final String name) {
        return name == null || name.equals(DB);
    }

    private static boolean matches(final String pattern, final String name) {
        return pattern == null || Pattern.matches(LikePattern.toRegex(pattern), name);
    }
}
