package io.meldb.sql.calcite;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.validate.SqlUserDefinedFunction;

/**
 * PostgreSQL's {@code name}, the type of identifiers in the system catalogs and of what {@code current_user},
 * {@code current_schema} and {@code current_database()} answer: a string of at most 63 bytes (NAMEDATALEN - 1).
 * To Calcite it is {@code VARCHAR(63)}, a length no MeldDB string column shows Calcite (their lengths are checked
 * when rows are written, {@code MeldTable}), so a computed result of exactly that type travels as {@code name}
 * (type OID 19) on the PostgreSQL protocol, as {@code uuid}'s marker length does for uuid; a value cast to
 * {@code varchar(63)} keeps its declared type (the result's declared types come first). Combined with other
 * strings ({@code ||}, a union with text) it becomes a longer or unbounded VARCHAR, text, as PostgreSQL's name does.
 */
public final class PgNameType {
    /** The length that marks a VARCHAR as name: NAMEDATALEN - 1, the longest name PostgreSQL keeps. */
    public static final int LENGTH = 63;

    private PgNameType() {
    }

    /** The name type, from {@code typeFactory}. */
    public static RelDataType of(final RelDataTypeFactory typeFactory, final boolean nullable) {
        return typeFactory.createTypeWithNullability(typeFactory.createSqlType(SqlTypeName.VARCHAR, LENGTH),
                nullable);
    }

    /** Whether {@code type} is the name type. */
    public static boolean is(final RelDataType type) {
        return type.getSqlTypeName() == SqlTypeName.VARCHAR && type.getPrecision() == LENGTH;
    }

    /**
     * PostgreSQL's type of {@code call}, which Calcite typed {@code type}: a name only where PostgreSQL keeps one
     * ({@link #keepsName}), text where Calcite passes its argument's type on and PostgreSQL reads the name as text
     * ({@code upper(current_user)}, {@code current_user || 'x'}); {@code type} itself otherwise. The validator
     * types the call so ({@link MeldValidator}), the conversion casts it so ({@link MeldConvertlets}).
     */
    static RelDataType of(final RelDataTypeFactory typeFactory, final SqlCall call, final RelDataType type) {
        if (!is(type) || keepsName(call)) {
            return type;
        }
        return typeFactory.createTypeWithNullability(typeFactory.createSqlType(SqlTypeName.VARCHAR),
                type.isNullable());
    }

    /**
     * Whether a call of name type answers a name in PostgreSQL too: a function that returns one (the session
     * functions, {@link SessionKeywords}), a choice among values (CASE, COALESCE, NULLIF, GREATEST, LEAST), an
     * alias, a cast (to varchar(63), which keeps its declared type). An aggregate or window function over a name
     * stays a name too ({@code max(current_user)}, text in PostgreSQL): Calcite's conversion of aggregates types
     * them by their argument, which a cast here cannot reach.
     */
    private static boolean keepsName(final SqlCall call) {
        final SqlOperator op = call.getOperator();
        if (op instanceof SqlUserDefinedFunction || op.isAggregator() || op.requiresOver()) {
            return true;
        }
        return switch (call.getKind()) {
            case CASE, COALESCE, NULLIF, GREATEST, LEAST, AS, CAST, OVER, FILTER, WITHIN_GROUP -> true;
            default -> false;
        };
    }
}
