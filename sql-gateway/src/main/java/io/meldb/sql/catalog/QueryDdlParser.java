package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;

import java.util.ArrayList;
import java.util.List;

/**
 * The DDL statements that carry a query or a comment, as {@link DdlParser} reads them through here: CREATE [OR
 * REPLACE] VIEW, CREATE TABLE ... AS query [WITH [NO] DATA], DROP VIEW and COMMENT ON. The query is kept as text
 * (Calcite parses it when the statement runs).
 */
final class QueryDdlParser {
    private QueryDdlParser() {
    }

    /** After CREATE [OR REPLACE] VIEW. */
    static Ddl createView(final DdlCursor c, final boolean orReplace) {
        final String[] name = c.qualifiedName();
        final List<String> columns = c.peek().text().equals("(") ? c.identifierList() : List.of();
        if (c.peek().is("WITH")) {
            throw new SqlStateException("0A000", "CREATE VIEW ... WITH (options) is not supported");
        }
        c.expectWord("AS");
        final String query = rest(c, false)[0];
        return new Ddl.CreateView(name[0], name[1], columns, query, orReplace);
    }

    /**
     * CREATE TABLE name [(column names)] AS query, with the cursor after the name: null (and the cursor where it
     * was) when this is not one, but a CREATE TABLE with column definitions.
     */
    static Ddl createTableAs(final DdlCursor c, final String[] name, final boolean ifNotExists) {
        final int start = c.pos;
        List<String> columns = List.of();
        if (c.peek().text().equals("(")) {
            try {
                columns = c.identifierList();
            } catch (SqlStateException e) {
                c.pos = start;
                return null;
            }
        }
        if (!c.acceptWord("AS")) {
            c.pos = start;
            return null;
        }
        final String[] query = rest(c, true);
        return new Ddl.CreateTableAs(name[0], name[1], columns, query[0], query[1] == null, ifNotExists);
    }

    /**
     * The query text from the cursor to the statement's end, without trailing semicolons; with {@code withData}
     * a trailing {@code WITH [NO] DATA} is cut off too ({1} non-null for WITH NO DATA).
     */
    private static String[] rest(final DdlCursor c, final boolean withData) {
        final List<SqlLexer.Token> tokens = c.tokens;
        int end = tokens.size() - 1; // END
        while (end > c.pos && tokens.get(end - 1).text().equals(";") && tokens.get(end - 1).kind()
                == SqlLexer.Kind.SYMBOL) {
            end--;
        }
        String noData = null;
        if (withData && end - c.pos >= 2 && tokens.get(end - 1).is("DATA")) {
            if (tokens.get(end - 2).is("WITH")) {
                end -= 2;
            } else if (end - c.pos >= 3 && tokens.get(end - 2).is("NO") && tokens.get(end - 3).is("WITH")) {
                end -= 3;
                noData = "no data";
            }
        }
        if (end <= c.pos) {
            throw c.syntax("a query");
        }
        final int from = tokens.get(c.pos).position();
        final int to = tokens.get(end).position();
        c.pos = tokens.size() - 1;
        return new String[] {c.sql.substring(from, to).trim(), noData};
    }

    /** After DROP VIEW. */
    static Ddl dropView(final DdlCursor c) {
        final boolean ifExists = c.ifExists();
        final List<Ddl.TableName> views = new ArrayList<>();
        do {
            final String[] name = c.qualifiedName();
            views.add(new Ddl.TableName(name[0], name[1]));
        } while (c.accept(","));
        final boolean cascade = c.acceptWord("CASCADE");
        if (!cascade) {
            c.acceptWord("RESTRICT");
        }
        return new Ddl.DropView(views, ifExists, cascade);
    }

    /** After COMMENT ON: TABLE | VIEW | COLUMN name IS 'text' | NULL. */
    static Ddl commentOn(final DdlCursor c) {
        final Ddl.TableName relation;
        String column = null;
        if (c.acceptWord("TABLE") || c.acceptWord("VIEW")) {
            final String[] name = c.qualifiedName();
            relation = new Ddl.TableName(name[0], name[1]);
        } else if (c.acceptWord("COLUMN")) {
            final List<String> parts = c.dottedName(4); // [[database.]schema.]table.column
            if (parts.size() < 2) {
                throw new SqlStateException("42601", "column name must be qualified");
            }
            column = parts.get(parts.size() - 1);
            relation = new Ddl.TableName(parts.size() >= 3 ? parts.get(parts.size() - 3) : null,
                    parts.get(parts.size() - 2));
        } else {
            throw new SqlStateException("0A000", "COMMENT ON " + c.peek().text() + " is not supported (only TABLE, "
                    + "VIEW and COLUMN)");
        }
        c.expectWord("IS");
        final SqlLexer.Token t = c.peek();
        final String text;
        if (c.acceptWord("NULL")) {
            text = null;
        } else if (t.kind() == SqlLexer.Kind.STRING) {
            c.pos++;
            text = t.text();
        } else {
            throw c.syntax("a string or NULL");
        }
        return new Ddl.CommentOn(relation, column, text);
    }
}
