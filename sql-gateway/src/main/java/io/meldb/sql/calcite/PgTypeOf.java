package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlUtil;
import org.apache.calcite.sql.type.InferTypes;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.sql.validate.SqlQualified;
import org.apache.calcite.sql.validate.SqlValidatorScope;
import org.apache.calcite.sql.validate.SqlValidatorTable;
import org.apache.calcite.sql2rel.SqlRexConvertlet;

import java.util.Locale;

/**
 * PostgreSQL's {@code pg_typeof(any)}: the type of its argument, as {@code regtype}, which MeldDB keeps as the
 * name it prints as ({@link CatalogCasts}): {@code integer}, {@code text}, {@code numeric},
 * {@code character varying}, {@code timestamp without time zone}, {@code integer[]}, ... The type is the one MeldDB
 * gives the value, which is the one its result column would travel as: a table column's declared type (a text,
 * varchar(n), char(n), json or jsonb column, all strings to Calcite), a value cast to a string type of its cast
 * ({@link DeclaredTypes}), PostgreSQL's name for {@code current_user} and the like ({@link PgNameType}), and
 * {@code unknown} for a string literal or NULL, as in PostgreSQL. The validator ({@link MeldValidator}) works the
 * name out where it sees the argument's column, and the call converts to that name as a constant.
 */
final class PgTypeOf {
    /** The function: any one argument, a regtype (a name) that is never NULL. */
    static final SqlFunction OPERATOR = new SqlFunction("PG_TYPEOF", SqlKind.OTHER_FUNCTION,
            ReturnTypes.explicit(SqlTypeName.VARCHAR), InferTypes.VARCHAR_1024, OperandTypes.ANY,
            SqlFunctionCategory.SYSTEM);

    /** The call as the type name its validation found, a constant. */
    static final SqlRexConvertlet CONVERTLET = (cx, call) -> {
        String name = cx.getValidator() instanceof MeldValidator v ? v.typeNameOf(call) : null;
        if (name == null) {
            name = of(call.operand(0), cx.getValidator().getValidatedNodeType(call.operand(0)), null);
        }
        return cx.getRexBuilder().makeLiteral(name, cx.getValidator().getValidatedNodeType(call), true);
    };

    private PgTypeOf() {
    }

    /**
     * The PostgreSQL type name of {@code operand}, whose validated type is {@code type}; {@code scope} (null if
     * unknown) finds the table column a name reads.
     */
    static String of(final SqlNode operand, final RelDataType type, final SqlValidatorScope scope) {
        if (SqlUtil.isNullLiteral(operand, true) || operand instanceof SqlCharStringLiteral) {
            return "unknown";
        }
        final ColumnType declared = DeclaredTypes.declared(operand);
        if (declared != null) {
            return name(declared);
        }
        final ColumnType column = column(operand, scope);
        return column != null ? name(column) : name(type);
    }

    /** The type of the table column {@code operand} names, or null when it names none (or no scope is known). */
    private static ColumnType column(final SqlNode operand, final SqlValidatorScope scope) {
        if (!(operand instanceof SqlIdentifier id) || scope == null) {
            return null;
        }
        try {
            final SqlQualified q = scope.fullyQualify(id);
            final SqlValidatorTable table = q.namespace == null ? null : q.namespace.getTable();
            final MeldTable meld = table == null ? null : table.unwrap(MeldTable.class);
            if (meld == null || q.suffix().size() != 1) {
                return null;
            }
            final int index = meld.def().columnIndex(q.suffix().get(0));
            return index < 0 ? null : meld.def().columns().get(index).type();
        } catch (RuntimeException e) {
            return null; // not a column of a table: the value's type says it
        }
    }

    /** PostgreSQL's name of a MeldDB column type. */
    private static String name(final ColumnType type) {
        return switch (type.type()) {
            case SMALLINT -> "smallint";
            case INTEGER -> "integer";
            case BIGINT -> "bigint";
            case DECIMAL -> "numeric";
            case DOUBLE -> "double precision";
            case REAL -> "real";
            case CHAR -> "character";
            case VARCHAR -> "character varying";
            case TEXT -> "text";
            case BOOLEAN -> "boolean";
            case DATE -> "date";
            case TIME -> "time without time zone";
            case TIMESTAMP -> "timestamp without time zone";
            case TIMESTAMPTZ -> "timestamp with time zone";
            case BYTEA -> "bytea";
            case UUID -> "uuid";
            case JSON -> type.scale() == ColumnType.JSONB_FLAG ? "jsonb" : "json";
        };
    }

    /** PostgreSQL's name of a computed value's type, as its result column would travel. */
    private static String name(final RelDataType type) {
        if (SqlTypeUtil.isInterval(type)) {
            return "interval";
        }
        return switch (type.getSqlTypeName()) {
            case BOOLEAN -> "boolean";
            case TINYINT, SMALLINT -> "smallint";
            case INTEGER -> "integer";
            case BIGINT -> "bigint";
            case DECIMAL -> "numeric";
            case REAL -> "real";
            case FLOAT, DOUBLE -> "double precision";
            case CHAR -> "text";
            case VARCHAR -> PgNameType.is(type) ? "name"
                    : type.getPrecision() == SqlType.UUID_MARKER_LENGTH ? "uuid" : "text";
            case DATE -> "date";
            case TIME -> "time without time zone";
            case TIMESTAMP -> "timestamp without time zone";
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> "timestamp with time zone";
            case BINARY, VARBINARY -> "bytea";
            case ARRAY -> {
                // an array of arrays is one array type in PostgreSQL
                final String element = name(java.util.Objects.requireNonNull(type.getComponentType()));
                yield element.endsWith("[]") ? element : element + "[]";
            }
            case ROW -> "record";
            case NULL -> "unknown";
            default -> throw new SqlStateException("0A000", "pg_typeof() of a value of type "
                    + type.getSqlTypeName().getName().toLowerCase(Locale.ROOT) + " is not supported");
        };
    }
}
