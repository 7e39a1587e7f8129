package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.Catalog;
import io.meldb.sql.catalog.TableDef;

import java.util.List;

/**
 * The one relation a RETURNING list sees: the table an INSERT, UPDATE or DELETE writes, known by its alias when it
 * has one and else by its name. Resolves the list's column references of one to four names and its qualified
 * stars as PostgreSQL 15 does (transformColumnRef in parse_expr.c, refnameNamespaceItem and errorMissingRTE in
 * parse_relation.c): {@code col}, {@code rel.col}, {@code schema.rel.col} (only when the table has no alias: an
 * alias hides the table's name) and {@code database.schema.rel.col}; a qualifier that names another table is 42P01,
 * {@code missing FROM-clause entry for table "x"}, or {@code invalid reference to FROM-clause entry for table "x"}
 * when it names the written table where only its alias may be used.
 *
 * @param table    the table written
 * @param alias    its alias in the statement, or null
 * @param catalog  the catalog the statement reads (to tell which table a qualifier names)
 * @param database the current database
 * @param schema   the schema an unqualified table name resolves in
 */
record ReturningTarget(TableDef table, String alias, Catalog catalog, String database, String schema) {

    /** The name the statement knows the table by: PostgreSQL's refname (its alias, or else its name). */
    String refname() {
        return alias != null ? alias : table.name();
    }

    /** The position in the table's rows of the column {@code names} (one to four names) refers to. */
    int column(final List<String> names) {
        final List<String> qualifier = qualifier(names, names.subList(0, names.size() - 1));
        final String column = names.get(names.size() - 1);
        final int c = table.columnIndex(column);
        if (c < 0) {
            throw new SqlStateException("42703", qualifier.isEmpty() ? "column \"" + column + "\" does not exist"
                    : "column " + qualifier.get(qualifier.size() - 1) + "." + column + " does not exist");
        }
        return c;
    }

    /** Checks the qualifier of {@code qualifier.*} (one to three names): it must name the table written. */
    void star(final List<String> qualifier) {
        final List<String> all = new java.util.ArrayList<>(qualifier);
        all.add("*");
        qualifier(all, qualifier);
    }

    /**
     * Checks that {@code qualifier} (the names before the column or star of the reference {@code names}) names the
     * table written, and answers it without its database.
     */
    private List<String> qualifier(final List<String> names, final List<String> qualifier) {
        if (qualifier.size() > 3) {
            throw new SqlStateException("42601", "improper qualified name (too many dotted names): " + dotted(names));
        }
        if (qualifier.size() == 3) {
            if (!qualifier.get(0).equals(database)) {
                throw new SqlStateException("0A000", "cross-database references are not implemented: "
                        + dotted(names));
            }
            return qualifier(names, qualifier.subList(1, 3));
        }
        if (qualifier.isEmpty()) {
            return qualifier;
        }
        final String relSchema = qualifier.size() == 2 ? qualifier.get(0) : null;
        final String rel = qualifier.get(qualifier.size() - 1);
        final boolean namesTable = relSchema == null ? rel.equals(refname())
                : alias == null && relSchema.equals(table.schema()) && rel.equals(table.name());
        if (!namesTable) {
            throw missing(relSchema, rel);
        }
        return qualifier;
    }

    /**
     * PostgreSQL's errorMissingRTE: the qualifier names no entry the list may use. When it names the written table
     * all the same (by its name, where an alias hides it, or with a schema), the reference is invalid; otherwise
     * the table is missing from the statement.
     */
    private SqlStateException missing(final String relSchema, final String rel) {
        final TableDef named = catalog.table(database, relSchema != null ? relSchema : schema, rel);
        if (named != null && named.id() == table.id() || rel.equals(refname())) {
            return new SqlStateException("42P01", "invalid reference to FROM-clause entry for table \"" + rel + "\"");
        }
        return new SqlStateException("42P01", "missing FROM-clause entry for table \"" + rel + "\"");
    }

    private static String dotted(final List<String> names) {
        return String.join(".", names);
    }
}
