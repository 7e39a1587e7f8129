package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;

import java.util.ArrayList;
import java.util.List;

/**
 * The token cursor MeldDB's DDL parsers share ({@link DdlParser}, {@link ColumnClauses}): the statement's tokens,
 * the position, and the small steps of recursive descent (accept or expect a keyword or symbol, names, numbers),
 * with PostgreSQL-style syntax errors (SQLState 42601).
 */
class DdlCursor {
    protected final String sql;
    protected final List<SqlLexer.Token> tokens;
    protected int pos;

    DdlCursor(final String sql) {
        this.sql = sql;
        this.tokens = SqlLexer.tokenize(sql);
    }

    /** An optionally signed integer that fits a long. */
    protected long longNumber() {
        final boolean negative = accept("-");
        if (!negative) {
            accept("+");
        }
        final SqlLexer.Token t = peek();
        if (t.kind() != SqlLexer.Kind.NUMBER) {
            throw syntax("a number");
        }
        pos++;
        try {
            return Long.parseLong((negative ? "-" : "") + t.text());
        } catch (NumberFormatException e) {
            throw new SqlStateException("22003", "value \"" + (negative ? "-" : "") + t.text()
                    + "\" is out of range for type bigint");
        }
    }

    protected int number() {
        final SqlLexer.Token t = peek();
        if (t.kind() != SqlLexer.Kind.NUMBER) {
            throw syntax("a number");
        }
        pos++;
        try {
            return Integer.parseInt(t.text());
        } catch (NumberFormatException e) {
            throw syntax("an integer");
        }
    }

    protected boolean ifNotExists() {
        if (acceptWord("IF")) {
            expectWord("NOT");
            expectWord("EXISTS");
            return true;
        }
        return false;
    }

    protected boolean ifExists() {
        if (acceptWord("IF")) {
            expectWord("EXISTS");
            return true;
        }
        return false;
    }

    /** [[database.]schema.]name → {schema or null, name}; the database must be MeldDB's one database. */
    protected String[] qualifiedName() {
        final List<String> parts = dottedName(3);
        final String name = parts.get(parts.size() - 1);
        final String schema = parts.size() >= 2 ? parts.get(parts.size() - 2) : null;
        return new String[] {schema, name};
    }

    /** [database.]schema → schema; the database must be MeldDB's one database. */
    protected String schemaName() {
        final List<String> parts = dottedName(2);
        return parts.get(parts.size() - 1);
    }

    protected List<String> dottedName(final int maxParts) {
        final List<String> parts = new ArrayList<>();
        parts.add(identifier());
        while (accept(".")) {
            parts.add(identifier());
        }
        if (parts.size() > maxParts) {
            throw syntax("a name of at most " + maxParts + " parts");
        }
        if (parts.size() == maxParts && !parts.get(0).equals(Catalog.DATABASE)) {
            throw new SqlStateException("3D000", "database \"" + parts.get(0) + "\" does not exist (this cluster's "
                    + "database is " + Catalog.DATABASE + ")");
        }
        return parts;
    }

    protected List<String> identifierList() {
        final List<String> names = new ArrayList<>();
        expect("(");
        do {
            names.add(identifier());
        } while (accept(","));
        expect(")");
        return names;
    }

    protected String identifier() {
        final SqlLexer.Token t = peek();
        if (t.kind() != SqlLexer.Kind.WORD) {
            throw syntax("an identifier");
        }
        pos++;
        return t.name();
    }

    protected SqlLexer.Token peek() {
        return tokens.get(pos);
    }

    protected boolean acceptWord(final String keyword) {
        if (peek().is(keyword)) {
            pos++;
            return true;
        }
        return false;
    }

    protected void expectWord(final String keyword) {
        if (!acceptWord(keyword)) {
            throw syntax(keyword);
        }
    }

    protected boolean accept(final String symbol) {
        final SqlLexer.Token t = peek();
        if (t.kind() == SqlLexer.Kind.SYMBOL && t.text().equals(symbol)) {
            pos++;
            return true;
        }
        return false;
    }

    protected void expect(final String symbol) {
        if (!accept(symbol)) {
            throw syntax("\"" + symbol + "\"");
        }
    }

    protected SqlStateException syntax(final String expected) {
        final SqlLexer.Token t = peek();
        final String found = t.kind() == SqlLexer.Kind.END ? "end of statement" : "\"" + t.text() + "\"";
        return new SqlStateException("42601", "syntax error at position " + (t.position() + 1) + ": expected "
                + expected + ", found " + found);
    }
}
