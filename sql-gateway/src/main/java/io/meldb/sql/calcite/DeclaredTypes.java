package io.meldb.sql.calcite;

import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.type.SqlTypeName;

import java.util.ArrayList;
import java.util.List;

/**
 * The string types a query's result columns are declared with where Calcite's types cannot tell: PostgreSQL types
 * a computed string as text, but a value cast to {@code varchar(n)} or {@code char(n)} as that type
 * ({@code SELECT CAST(x AS varchar(3))} is a varchar column with typmod 7), and one cast to json or jsonb (or
 * taken from such a value with {@code ->}) as json; to Calcite all are VARCHAR or CHAR.
 * The validator ({@link MeldValidator}) records, for each select item of the statement it validated last on this
 * thread, the type of an outermost CAST to a character type, or null; the statement that prepared it takes the
 * list ({@link #take()}) to describe its columns.
 */
public final class DeclaredTypes {
    private static final ThreadLocal<List<ColumnType>> LAST = new ThreadLocal<>();

    private DeclaredTypes() {
    }

    /** The declared types of the statement validated last on this thread (null: none recorded); forgets them. */
    public static List<ColumnType> take() {
        final List<ColumnType> out = LAST.get();
        LAST.remove();
        return out;
    }

    /** Records the select items' declared types of the validated statement {@code node}. */
    static void record(final SqlNode node) {
        SqlNode query = node;
        if (query instanceof SqlOrderBy orderBy) {
            query = orderBy.query;
        }
        if (!(query instanceof SqlSelect select) || select.getSelectList() == null) {
            LAST.remove();
            return;
        }
        final List<ColumnType> out = new ArrayList<>(select.getSelectList().size());
        for (SqlNode item : select.getSelectList()) {
            out.add(declared(item));
        }
        LAST.set(out);
    }

    /**
     * The declared type of the value of {@code item} (a select item, or any expression): a cast's to a string
     * type, json or jsonb, or a json value's; null when its Calcite type tells.
     */
    static ColumnType declared(final SqlNode item) {
        SqlNode node = item;
        if (node instanceof SqlCall as && as.getKind() == SqlKind.AS) {
            node = as.operand(0);
        }
        if (node instanceof SqlCall built && built.getOperator().getName().toLowerCase(java.util.Locale.ROOT)
                .matches("json_build_(object|array)")) {
            return new ColumnType(SqlType.JSON, 0, 0);
        }
        if (node instanceof SqlCall call && call.operandCount() == 2
                && call.getOperator().getName().toLowerCase(java.util.Locale.ROOT).matches("json_(field|element|get)")) {
            // j -> 'k', j -> 2: json of json, jsonb of jsonb (->> is text)
            return declared(call.operand(0));
        }
        if (!(node instanceof SqlCall cast) || cast.getKind() != SqlKind.CAST || cast.operandCount() != 2
                || !(cast.operand(1) instanceof SqlDataTypeSpec spec)) {
            return null;
        }
        if (spec.getTypeNameSpec() instanceof org.apache.calcite.sql.SqlUserDefinedTypeNameSpec user) {
            final String type = user.getTypeName().getSimple().toLowerCase(java.util.Locale.ROOT);
            return type.equals("json") ? new ColumnType(SqlType.JSON, 0, 0)
                    : type.equals("jsonb") ? new ColumnType(SqlType.JSON, 0, ColumnType.JSONB_FLAG) : null;
        }
        if (!(spec.getTypeNameSpec() instanceof SqlBasicTypeNameSpec basic)) {
            return null;
        }
        final SqlTypeName name = SqlTypeName.get(basic.getTypeName().getSimple().toUpperCase(java.util.Locale.ROOT));
        if (name == SqlTypeName.VARCHAR && basic.getPrecision() > 0) {
            // without a length it is text's cast too (the PostgreSQL front end writes ::text as VARCHAR)
            return new ColumnType(SqlType.VARCHAR, basic.getPrecision(), 0);
        }
        if (name == SqlTypeName.CHAR) {
            return new ColumnType(SqlType.CHAR, basic.getPrecision() > 0 ? basic.getPrecision() : 1, 0);
        }
        return null;
    }
}
