package io.meldb.sql.calcite;

import io.meldb.sql.catalog.TableDef;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.apache.calcite.sql.validate.SqlValidatorCatalogReader;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * PostgreSQL's functional dependency of a table's columns on its primary key in GROUP BY (PostgreSQL's
 * {@code check_functional_grouping}): when a query groups by every primary key column of a table in its FROM
 * clause, the table's other columns may appear in the select list, HAVING and ORDER BY without being grouped, as
 * ORMs rely on ({@code GROUP BY author.id} with {@code author.name} selected). Before validation, each such
 * SELECT's GROUP BY gains the table's other columns: grouping by columns that the key determines groups the same
 * rows, so the answer is PostgreSQL's, and Calcite's validator then accepts the columns. Only plain GROUP BY lists
 * (no ROLLUP, CUBE or GROUPING SETS) of column references are extended, and only for tables (not views or
 * subqueries) named in FROM, as in PostgreSQL.
 */
final class FunctionalDependencies {
    private FunctionalDependencies() {
    }

    /** Extends the GROUP BY of every SELECT in {@code node} (subqueries included). */
    static void extendGroupBy(final SqlNode node, final SqlValidatorCatalogReader reader) {
        node.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(final SqlCall call) {
                if (call instanceof SqlSelect select) {
                    extend(select, reader);
                }
                return super.visit(call);
            }
        });
    }

    private static void extend(final SqlSelect select, final SqlValidatorCatalogReader reader) {
        final SqlNodeList group = select.getGroup();
        if (group == null || group.isEmpty() || select.getFrom() == null) {
            return;
        }
        for (SqlNode item : group) {
            if (!(item instanceof SqlIdentifier)) {
                if (item instanceof SqlCall c && (c.getKind() == SqlKind.ROLLUP || c.getKind() == SqlKind.CUBE
                        || c.getKind() == SqlKind.GROUPING_SETS)) {
                    return;
                }
            }
        }
        final Map<String, TableDef> tables = new LinkedHashMap<>();
        collect(select.getFrom(), reader, tables);
        if (tables.isEmpty()) {
            return;
        }
        final List<SqlNode> added = new ArrayList<>();
        for (Map.Entry<String, TableDef> e : tables.entrySet()) {
            final TableDef def = e.getValue();
            if (def.primaryKey().length == 0) {
                continue;
            }
            final Set<String> grouped = new HashSet<>();
            for (SqlNode item : group) {
                if (item instanceof SqlIdentifier id && !id.isStar()) {
                    final List<String> names = id.names;
                    if (names.size() >= 2 && names.get(names.size() - 2).equals(e.getKey())) {
                        grouped.add(names.get(names.size() - 1));
                    } else if (names.size() == 1 && tables.size() == 1) {
                        grouped.add(names.get(0));
                    }
                }
            }
            boolean keyGrouped = true;
            for (int k : def.primaryKey()) {
                keyGrouped &= grouped.contains(def.columns().get(k).name());
            }
            if (!keyGrouped) {
                continue;
            }
            for (var column : def.columns()) {
                if (!grouped.contains(column.name())) {
                    added.add(new SqlIdentifier(List.of(e.getKey(), column.name()), SqlParserPos.ZERO));
                }
            }
        }
        if (!added.isEmpty()) {
            final List<SqlNode> items = new ArrayList<>(group.getList());
            items.addAll(added);
            select.setGroupBy(new SqlNodeList(items, group.getParserPosition()));
        }
    }

    /** The tables of a FROM clause by the name that qualifies their columns (the alias, else the table's name). */
    private static void collect(final SqlNode from, final SqlValidatorCatalogReader reader,
                                final Map<String, TableDef> out) {
        if (from instanceof SqlJoin join) {
            collect(join.getLeft(), reader, out);
            collect(join.getRight(), reader, out);
        } else if (from instanceof SqlBasicCall as && as.getKind() == SqlKind.AS
                && as.operand(0) instanceof SqlIdentifier table) {
            final TableDef def = table(table, reader);
            if (def != null && as.operandCount() == 2) {
                out.put(((SqlIdentifier) as.operand(1)).getSimple(), def);
            }
        } else if (from instanceof SqlIdentifier table) {
            final TableDef def = table(table, reader);
            if (def != null) {
                out.put(table.names.get(table.names.size() - 1), def);
            }
        }
    }

    private static TableDef table(final SqlIdentifier name, final SqlValidatorCatalogReader reader) {
        try {
            final Prepare.PreparingTable t = (Prepare.PreparingTable) reader.getTable(name.names);
            final MeldTable meld = t == null ? null : t.unwrap(MeldTable.class);
            return meld == null ? null : meld.def();
        } catch (RuntimeException | AssertionError e) {
            return null; // not a table MeldDB stores: the validator reports what it is
        }
    }
}
