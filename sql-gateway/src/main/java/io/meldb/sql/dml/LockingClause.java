package io.meldb.sql.dml;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.SqlLexer;
import io.meldb.sql.catalog.SqlLexer.Kind;
import io.meldb.sql.catalog.SqlLexer.Token;

import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL's row-locking clauses of a SELECT ({@code FOR UPDATE | FOR NO KEY UPDATE | FOR SHARE | FOR KEY SHARE
 * [OF t, ...] [NOWAIT | SKIP LOCKED]}, one or more, before or after LIMIT/OFFSET), which Calcite's parser does not
 * read: {@link #split} takes them out of the statement and says which tables they name.
 *
 * <p>MeldDB takes no locks (Hyder: optimistic concurrency, meld decides at commit). A row read under such a clause
 * is written unchanged into the transaction's intention ({@link RowLocks}), so meld's conflict test treats it as
 * written: a concurrent transaction that writes (or locks) it aborts with 40001, under snapshot isolation too.
 * NOWAIT and SKIP LOCKED are accepted and change nothing: nothing ever waits, conflicts surface at commit.
 *
 * @param sql    the statement without its locking clauses
 * @param tables the names after OF (lower-cased unless quoted), empty when a clause named none (every table)
 */
public record LockingClause(String sql, List<String> tables) {

    /** The statement's locking clauses taken out, or null when it is no SELECT or has none at its top level. */
    public static LockingClause split(final String sql) {
        final String first = SqlLexer.firstKeyword(sql);
        if (!first.equals("SELECT") && !first.equals("WITH")) {
            return null;
        }
        if (!containsWordFor(sql)) {
            return null; // the common case, without tokenizing
        }
        final List<Token> tokens = SqlLexer.tokenize(sql);
        final StringBuilder out = new StringBuilder(sql.length());
        final List<String> tables = new ArrayList<>();
        boolean allTables = false;
        boolean found = false;
        int copiedTo = 0;
        int depth = 0;
        int i = 0;
        while (tokens.get(i).kind() != Kind.END) {
            final Token t = tokens.get(i);
            if (symbol(t, "(")) {
                depth++;
            } else if (symbol(t, ")")) {
                depth--;
            } else if (depth == 0 && t.is("FOR") && strengthAt(tokens, i + 1) > 0) {
                found = true;
                out.append(sql, copiedTo, t.position());
                int j = i + 1 + strengthAt(tokens, i + 1);
                if (tokens.get(j).is("OF")) {
                    do {
                        j++;
                        final Token name = tokens.get(j);
                        if (name.kind() != Kind.WORD) {
                            throw new SqlStateException("42601", "syntax error at or near \"" + name.text()
                                    + "\": expected a table name after OF");
                        }
                        j++;
                        String last = name.name();
                        while (symbol(tokens.get(j), ".") && tokens.get(j + 1).kind() == Kind.WORD) {
                            last = tokens.get(j + 1).name(); // schema.table: the table's name
                            j += 2;
                        }
                        tables.add(last);
                    } while (symbol(tokens.get(j), ","));
                } else {
                    allTables = true;
                }
                if (tokens.get(j).is("NOWAIT")) {
                    j++;
                } else if (tokens.get(j).is("SKIP") && tokens.get(j + 1).is("LOCKED")) {
                    j += 2;
                }
                copiedTo = tokens.get(j).position();
                out.append(' ');
                i = j;
                continue;
            }
            i++;
        }
        if (!found) {
            return null;
        }
        out.append(sql, copiedTo, sql.length());
        return new LockingClause(out.toString().strip(), allTables ? List.of() : List.copyOf(tables));
    }

    /** Whether the clauses lock the rows of every table the statement reads (some clause named no table). */
    public boolean allTables() {
        return tables.isEmpty();
    }

    /** How many tokens the lock strength at {@code i} takes (UPDATE, NO KEY UPDATE, SHARE, KEY SHARE), or 0. */
    private static int strengthAt(final List<Token> tokens, final int i) {
        final Token t = tokens.get(i);
        if (t.is("UPDATE") || t.is("SHARE")) {
            return 1;
        }
        if (t.is("NO") && tokens.get(i + 1).is("KEY") && tokens.get(i + 2).is("UPDATE")) {
            return 3;
        }
        if (t.is("KEY") && tokens.get(i + 1).is("SHARE")) {
            return 2;
        }
        return 0;
    }

    private static boolean symbol(final Token t, final String s) {
        return t.kind() == Kind.SYMBOL && t.text().equals(s);
    }

    private static boolean containsWordFor(final String sql) {
        for (int i = 0; i + 3 <= sql.length(); i++) {
            if (sql.regionMatches(true, i, "for", 0, 3)) {
                return true;
            }
        }
        return false;
    }
}
