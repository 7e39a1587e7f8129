package io.meldb.sql.pg;

import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlWith;
import org.apache.calcite.sql.parser.SqlParseException;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * PostgreSQL's names for result columns that the query did not name: a function or aggregate call is named after
 * the function ({@code count}, {@code sum}, {@code length}), a cast after its type, anything else
 * {@code ?column?}. Calcite calls them {@code EXPR$0}, {@code EXPR$1}, ... which clients that read columns by name
 * (psycopg's dict rows, ORMs) do not expect. Only the top-level select list of a plain query is looked at; other
 * labels are left as Calcite gives them (a WITH query's main select list is the top level).
 */
final class PgColumnNames {
    private static final Pattern GENERATED = Pattern.compile("EXPR\\$\\d+");

    private PgColumnNames() {
    }

    /** The columns with PostgreSQL's names in place of Calcite's generated ones. */
    static PgColumns rename(final String sql, final PgColumns columns) {
        boolean generated = false;
        for (int i = 0; i < columns.size(); i++) {
            generated |= GENERATED.matcher(columns.name(i)).matches();
        }
        if (!generated) {
            return columns;
        }
        final SqlNode[] items = selectList(sql);
        if (items == null || items.length != columns.size()) {
            return columns;
        }
        final String[] names = new String[columns.size()];
        for (int i = 0; i < names.length; i++) {
            names[i] = GENERATED.matcher(columns.name(i)).matches() ? nameOf(items[i]) : columns.name(i);
        }
        return columns.withNames(names);
    }

    private static SqlNode[] selectList(final String sql) {
        SqlNode node;
        try {
            node = io.meldb.sql.calcite.MeldLex.parser(sql).parseQuery();
        } catch (SqlParseException | RuntimeException e) {
            return null;
        }
        if (node instanceof SqlWith with) {
            node = with.body;
        }
        if (node instanceof SqlOrderBy orderBy) {
            node = orderBy.query;
        }
        while (node != null && (node.getKind() == SqlKind.UNION || node.getKind() == SqlKind.INTERSECT
                || node.getKind() == SqlKind.EXCEPT) && node instanceof SqlCall set) {
            node = set.operand(0); // a set operation's columns are named by its first query
        }
        if (!(node instanceof SqlSelect select)) {
            return null;
        }
        final SqlNode[] items = select.getSelectList().getList().toArray(new SqlNode[0]);
        for (SqlNode item : items) {
            if (item instanceof SqlIdentifier id && id.isStar()) {
                return null; // a star stands for several columns: positions no longer line up
            }
        }
        return items;
    }

    private static String nameOf(final SqlNode item) {
        if (item.getKind() == SqlKind.OVER && item instanceof SqlCall over && over.operandCount() > 0) {
            return nameOf(over.operand(0)); // a window function is named after the function
        }
        if (item.getKind() == SqlKind.CAST && item instanceof SqlBasicCall cast && cast.operandCount() == 2) {
            return PgType.ofJdbcName(cast.operand(1).toString().replace("`", "").replace("\"", ""));
        }
        if (item instanceof SqlCall call && call.getOperator() instanceof SqlFunction function) {
            final String name = function.getName().toLowerCase(Locale.ROOT);
            // the JSON operators' calls (PgSqlRewriter): an operator's column is ?column?, as in PostgreSQL
            return name.startsWith("json_field") || name.startsWith("json_element") ? "?column?" : name;
        }
        return "?column?";
    }
}
