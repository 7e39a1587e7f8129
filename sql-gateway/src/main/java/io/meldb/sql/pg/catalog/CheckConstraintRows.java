package io.meldb.sql.pg.catalog;

import io.meldb.sql.calcite.MeldTxnContext;
import io.meldb.sql.catalog.CheckDef;
import io.meldb.sql.catalog.CheckExpression;
import io.meldb.sql.catalog.ColumnDef;
import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.pg.catalog.PgCatalogView.ForeignKey;
import io.meldb.sql.pg.catalog.PgCatalogView.Namespace;
import io.meldb.sql.pg.catalog.PgCatalogView.Relation;
import org.apache.calcite.schema.Table;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * information_schema's {@code check_constraints} and {@code constraint_column_usage}, and the CHECK rows of
 * {@code table_constraints}, as PostgreSQL 15 gives them: every CHECK constraint with its clause as
 * {@code pg_get_constraintdef} writes it after "CHECK " ({@code ((id > 0))}: MeldDB's text as written, in
 * PostgreSQL's parentheses), and every NOT NULL column as a CHECK constraint named
 * {@code <schema oid>_<table oid>_<attnum>_not_null} with the clause {@code col IS NOT NULL};
 * {@code constraint_column_usage} lists the columns a constraint uses: a key's own, the referenced columns of a
 * foreign key (in the parent table), the columns a CHECK condition names.
 */
final class CheckConstraintRows {
    /** A CHECK constraint (or a NOT NULL column, {@code notNull}) of {@code table}. */
    record Check(Namespace namespace, Relation table, String name, String clause, boolean notNull) {
    }

    /** A column (of {@code table}) that constraint {@code constraint} of {@code owner}'s schema uses. */
    record Usage(Namespace namespace, String constraint, Relation table, String column) {
    }

    private CheckConstraintRows() {
    }

    /** Adds check_constraints and constraint_column_usage to information_schema's tables. */
    static void addTo(final Map<String, Table> t, final MeldTxnContext cx) {
        t.put("check_constraints", SystemTable.of(cx, SystemTable.<Check>columns()
                .constant("constraint_catalog", PgCatalogView.DATABASE)
                .text("constraint_schema", c -> c.namespace().name())
                .text("constraint_name", Check::name)
                .text("check_clause", Check::clause), CheckConstraintRows::checks));
        t.put("constraint_column_usage", SystemTable.of(cx, SystemTable.<Usage>columns()
                .constant("table_catalog", PgCatalogView.DATABASE)
                .text("table_schema", u -> u.table().namespace().name())
                .text("table_name", u -> u.table().name())
                .text("column_name", Usage::column)
                .constant("constraint_catalog", PgCatalogView.DATABASE)
                .text("constraint_schema", u -> u.namespace().name())
                .text("constraint_name", Usage::constraint), CheckConstraintRows::usages));
    }

    /** The CHECK constraints and NOT NULL columns of every table, by schema and name. */
    static List<Check> checks(final PgCatalogView v) {
        final List<Check> out = new ArrayList<>();
        for (Relation r : v.relations()) {
            if (!r.isTable()) {
                continue;
            }
            final TableDef def = r.table();
            for (CheckDef c : def.checks()) {
                out.add(new Check(r.namespace(), r, c.name(), clause(c), false));
            }
            for (int i = 0; i < def.columns().size(); i++) {
                if (PgCatalogView.notNull(def, i)) {
                    out.add(new Check(r.namespace(), r, r.namespace().oid() + "_" + r.oid() + "_" + (i + 1)
                            + "_not_null", def.columns().get(i).name() + " IS NOT NULL", true));
                }
            }
        }
        out.sort(Comparator.comparing((Check c) -> c.namespace().name()).thenComparing(Check::name));
        return out;
    }

    /** A CHECK constraint's clause as pg_get_constraintdef writes it after "CHECK ": {@code ((id > 0))}. */
    static String clause(final CheckDef c) {
        return "(" + parenthesized(c.sql()) + ")";
    }

    /** {@code sql} in one pair of parentheses, as PostgreSQL deparses a comparison: {@code (id > 0)}. */
    private static String parenthesized(final String sql) {
        String s = sql.trim();
        while (s.startsWith("(") && s.endsWith(")") && balanced(s.substring(1, s.length() - 1))) {
            s = s.substring(1, s.length() - 1).trim();
        }
        return "(" + s + ")";
    }

    private static boolean balanced(final String s) {
        int depth = 0;
        boolean quoted = false;
        for (int i = 0; i < s.length(); i++) {
            final char ch = s.charAt(i);
            if (ch == '\'') {
                quoted = !quoted;
            } else if (!quoted && ch == '(') {
                depth++;
            } else if (!quoted && ch == ')' && --depth < 0) {
                return false;
            }
        }
        return depth == 0;
    }

    /** Every column every constraint uses (NOT NULL columns are no constraint here, as in PostgreSQL 15). */
    static List<Usage> usages(final PgCatalogView v) {
        final List<Usage> out = new ArrayList<>();
        for (Relation r : SystemSchemas.keyConstraintsOf(v)) {
            final Relation table = v.tableOf(r);
            for (int k : r.keyColumns()) {
                out.add(new Usage(r.namespace(), r.name(), table, r.table().columns().get(k).name()));
            }
        }
        for (ForeignKey fk : v.foreignKeys()) {
            for (int k : fk.def().parentColumns()) {
                out.add(new Usage(fk.namespace(), fk.name(), fk.parent(), fk.parent().table().columns().get(k)
                        .name()));
            }
        }
        for (Check c : checks(v)) {
            if (c.notNull()) {
                continue;
            }
            final List<ColumnDef> columns = c.table().table().columns();
            for (String name : CheckExpression.columnsOf(c.clause())) {
                for (ColumnDef col : columns) {
                    if (col.name().equals(name)) {
                        out.add(new Usage(c.namespace(), c.name(), c.table(), name));
                    }
                }
            }
        }
        out.sort(Comparator.comparing((Usage u) -> u.namespace().name()).thenComparing(Usage::constraint)
                .thenComparing(u -> u.table().name()).thenComparing(Usage::column));
        return out;
    }
}
