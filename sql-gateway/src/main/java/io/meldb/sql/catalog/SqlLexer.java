package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Splits SQL text into tokens for {@link DdlParser} and for classifying statements: words, quoted identifiers,
 * numbers, string literals and punctuation. Skips comments. A word's {@code text} is upper case, for matching
 * keywords; as a name ({@link Token#name()}) an unquoted word folds to lower case and a quoted one keeps its case,
 * PostgreSQL's rule (the Calcite side folds the same way: {@code io.meldb.sql.calcite.MeldLex}).
 */
public final class SqlLexer {
    /** A token; {@code quoted} identifiers keep their case and are never keywords. */
    public record Token(Kind kind, String text, boolean quoted, int position) {
        public boolean is(final String keyword) {
            return kind == Kind.WORD && !quoted && text.equals(keyword);
        }

        /** The word as an identifier: lower case unless quoted. */
        public String name() {
            return quoted ? text : text.toLowerCase(Locale.ROOT);
        }
    }

    public enum Kind { WORD, NUMBER, STRING, SYMBOL, END }

    private SqlLexer() {
    }

    public static List<Token> tokenize(final String sql) {
        final List<Token> tokens = new ArrayList<>();
        int i = 0;
        final int n = sql.length();
        while (i < n) {
            final char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                while (i < n && sql.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                final int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (Character.isLetter(c) || c == '_') {
                final int start = i;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_'
                        || sql.charAt(i) == '$')) {
                    i++;
                }
                tokens.add(new Token(Kind.WORD, sql.substring(start, i).toUpperCase(Locale.ROOT), false, start));
            } else if (c == '"') {
                final int start = i;
                final StringBuilder b = new StringBuilder();
                i++;
                while (true) {
                    if (i >= n) {
                        throw new SqlStateException("42601", "unterminated quoted identifier at position " + start);
                    }
                    if (sql.charAt(i) == '"') {
                        if (i + 1 < n && sql.charAt(i + 1) == '"') {
                            b.append('"');
                            i += 2;
                            continue;
                        }
                        i++;
                        break;
                    }
                    b.append(sql.charAt(i++));
                }
                tokens.add(new Token(Kind.WORD, b.toString(), true, start));
            } else if (c == '\'') {
                final int start = i;
                final StringBuilder b = new StringBuilder();
                i++;
                while (true) {
                    if (i >= n) {
                        throw new SqlStateException("42601", "unterminated string literal at position " + start);
                    }
                    if (sql.charAt(i) == '\'') {
                        if (i + 1 < n && sql.charAt(i + 1) == '\'') {
                            b.append('\'');
                            i += 2;
                            continue;
                        }
                        i++;
                        break;
                    }
                    b.append(sql.charAt(i++));
                }
                tokens.add(new Token(Kind.STRING, b.toString(), false, start));
            } else if (Character.isDigit(c)) {
                final int start = i;
                while (i < n && (Character.isDigit(sql.charAt(i)) || sql.charAt(i) == '.')) {
                    i++;
                }
                tokens.add(new Token(Kind.NUMBER, sql.substring(start, i), false, start));
            } else {
                tokens.add(new Token(Kind.SYMBOL, String.valueOf(c), false, i));
                i++;
            }
        }
        tokens.add(new Token(Kind.END, "", false, n));
        return tokens;
    }

    /** The first keyword of the statement (upper case), or "" when there is none. */
    public static String firstKeyword(final String sql) {
        for (Token t : tokenize(sql)) {
            if (t.kind() == Kind.WORD && !t.quoted()) {
                return t.text();
            }
            if (t.kind() == Kind.SYMBOL && t.text().equals("(")) {
                continue;
            }
            return "";
        }
        return "";
    }
}
