package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.SqlLexer;
import io.meldb.sql.catalog.SqlLexer.Token;

import java.util.List;

/**
 * Which MERGE statements MeldDB runs: the SQL:2003 form Calcite's parser reads (at most one {@code WHEN MATCHED THEN
 * UPDATE} followed by at most one {@code WHEN NOT MATCHED THEN INSERT}). The PostgreSQL 15 forms beyond it (a
 * condition on a WHEN clause, {@code THEN DELETE}, {@code DO NOTHING}, several clauses of one kind, {@code NOT
 * MATCHED BY SOURCE}) answer 0A000 naming the form, rather than the parser's bare 42601.
 */
final class MergeForms {
    private MergeForms() {
    }

    /** Throws 0A000 when the MERGE statement {@code sql} uses a form MeldDB does not run; returns otherwise. */
    static void refuseUnsupported(final String sql) {
        final List<Token> tokens = SqlLexer.tokenize(sql);
        int depth = 0;
        boolean matched = false;
        boolean notMatched = false;
        for (int i = 0; i < tokens.size(); i++) {
            final Token t = tokens.get(i);
            if (t.kind() == SqlLexer.Kind.SYMBOL && t.text().equals("(") || t.is("CASE")) {
                depth++; // a WHEN inside parentheses or a CASE is an expression's, not a MERGE clause
            } else if (t.kind() == SqlLexer.Kind.SYMBOL && t.text().equals(")") || t.is("END")) {
                depth--;
            } else if (depth == 0 && i == 1 && t.is("ONLY") || depth == 0 && i == 2 && t.is("ONLY")) {
                throw refused("MERGE INTO ONLY (MeldDB has no table inheritance)");
            } else if (depth == 0 && t.is("WHEN")) {
                int j = i + 1;
                final boolean not = tokens.get(j).is("NOT");
                if (not) {
                    j++;
                }
                if (!tokens.get(j).is("MATCHED")) {
                    continue; // the parser answers the syntax error
                }
                j++;
                if (tokens.get(j).is("BY")) {
                    throw refused("MERGE ... WHEN NOT MATCHED BY " + tokens.get(j + 1).text());
                }
                final String clause = not ? "WHEN NOT MATCHED" : "WHEN MATCHED";
                if (tokens.get(j).is("AND")) {
                    throw refused("MERGE ... " + clause + " AND condition");
                }
                if (tokens.get(j).is("THEN")) {
                    j++;
                }
                if (tokens.get(j).is("DELETE")) {
                    throw refused("MERGE ... " + clause + " THEN DELETE");
                }
                if (tokens.get(j).is("DO") && tokens.get(j + 1).is("NOTHING")) {
                    throw refused("MERGE ... " + clause + " THEN DO NOTHING");
                }
                if (not ? notMatched : matched) {
                    throw refused("MERGE with several " + clause + " clauses");
                }
                if (!not && notMatched) {
                    throw refused("MERGE with WHEN MATCHED after WHEN NOT MATCHED (write WHEN MATCHED first)");
                }
                if (not) {
                    notMatched = true;
                } else {
                    matched = true;
                }
            }
        }
    }

    private static SqlStateException refused(final String form) {
        return new SqlStateException("0A000", form + " is not supported (MeldDB runs MERGE with at most one "
                + "WHEN MATCHED THEN UPDATE followed by at most one WHEN NOT MATCHED THEN INSERT)");
    }
}
