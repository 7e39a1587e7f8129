package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;

import java.math.BigDecimal;
import java.util.List;

/**
 * The clauses of a column or sequence definition that {@link DdlParser} reads through here: {@code DEFAULT}
 * expressions (constants, the clock, {@code nextval}), the text of a {@code CHECK} condition, the SERIAL pseudo
 * types, and sequence options ({@code CREATE SEQUENCE}, {@code GENERATED ... AS IDENTITY (...)}). A DEFAULT that
 * is none of those is refused with 0A000, so a default is never stored that MeldDB could not compute.
 */
final class ColumnClauses {
    private ColumnClauses() {
    }

    /** The integer type of a SERIAL pseudo type ({@code serial}, {@code bigserial}, ...), or null. */
    static SqlType serialType(final SqlLexer.Token t) {
        if (t.kind() != SqlLexer.Kind.WORD || t.quoted()) {
            return null;
        }
        return switch (t.text()) {
            case "SERIAL", "SERIAL4" -> SqlType.INTEGER;
            case "BIGSERIAL", "SERIAL8" -> SqlType.BIGINT;
            case "SMALLSERIAL", "SERIAL2" -> SqlType.SMALLINT;
            default -> null;
        };
    }

    /** The expression after DEFAULT, for a column of {@code type}. */
    static ColumnDefault defaultExpression(final DdlCursor c, final ColumnType type) {
        if (c.accept("(")) {
            final ColumnDefault inner = defaultExpression(c, type);
            c.expect(")");
            return inner;
        }
        final SqlLexer.Token t = c.peek();
        final ColumnDefault d;
        if (t.is("CURRENT_TIMESTAMP") || t.is("LOCALTIMESTAMP") || t.is("NOW") || t.is("TRANSACTION_TIMESTAMP")
                || t.is("STATEMENT_TIMESTAMP")) {
            c.pos++;
            if (c.accept("(")) {
                if (!c.accept(")")) {
                    c.number();
                    c.expect(")");
                }
            } else if (!t.is("CURRENT_TIMESTAMP") && !t.is("LOCALTIMESTAMP")) {
                throw c.syntax("\"(\"");
            }
            if (type.type() == SqlType.TIMESTAMP || type.type() == SqlType.TIMESTAMPTZ) {
                // both hold the instant as UTC milliseconds: now() is PostgreSQL's usual timestamptz default
                d = ColumnDefault.now();
            } else if (type.type() == SqlType.DATE) {
                d = ColumnDefault.today();
            } else {
                throw mismatch(type, "timestamp");
            }
        } else if (t.is("CURRENT_DATE")) {
            c.pos++;
            if (type.type() != SqlType.DATE) {
                throw mismatch(type, "date");
            }
            d = ColumnDefault.today();
        } else if (t.is("GEN_RANDOM_UUID") || t.is("UUID_GENERATE_V4")) {
            c.pos++;
            c.expect("(");
            c.expect(")");
            if (type.type() != SqlType.UUID && type.type() != SqlType.TEXT && type.type() != SqlType.VARCHAR
                    && type.type() != SqlType.CHAR) {
                throw mismatch(type, "uuid");
            }
            d = ColumnDefault.randomUuid();
        } else if (t.is("NEXTVAL")) {
            c.pos++;
            c.expect("(");
            // nextval('s'::regclass), which the PostgreSQL front end hands on as nextval(CAST('s' AS VARCHAR))
            final boolean cast = c.acceptWord("CAST");
            if (cast) {
                c.expect("(");
            }
            final SqlLexer.Token name = c.peek();
            if (name.kind() != SqlLexer.Kind.STRING) {
                throw c.syntax("a sequence name in quotes");
            }
            c.pos++;
            if (cast) {
                c.expectWord("AS");
                c.identifier();
                c.expect(")");
            }
            skipCast(c);
            c.expect(")");
            if (!type.type().isExactInteger() && type.type() != SqlType.DECIMAL) {
                throw mismatch(type, "bigint");
            }
            final String[] parts = sequenceName(name.text());
            d = ColumnDefault.nextval(parts[0], parts[1]);
        } else {
            d = constant(c, type);
        }
        skipCast(c);
        final SqlLexer.Token next = c.peek();
        if (next.kind() == SqlLexer.Kind.SYMBOL && !next.text().equals(",") && !next.text().equals(")")) {
            throw new SqlStateException("0A000", "DEFAULT expressions other than a constant, CURRENT_TIMESTAMP, "
                    + "now(), CURRENT_DATE, gen_random_uuid() and nextval('sequence') are not supported (at \"" + next.text() + "\")");
        }
        return d;
    }

    /** A constant default: a number (signed), a string, TRUE, FALSE or NULL, coerced to the column's type. */
    private static ColumnDefault constant(final DdlCursor c, final ColumnType type) {
        final SqlLexer.Token t = c.peek();
        final Object raw;
        final String sql;
        if (t.kind() == SqlLexer.Kind.SYMBOL && (t.text().equals("-") || t.text().equals("+"))
                || t.kind() == SqlLexer.Kind.NUMBER) {
            final boolean negative = c.accept("-");
            if (!negative) {
                c.accept("+");
            }
            final SqlLexer.Token n = c.peek();
            if (n.kind() != SqlLexer.Kind.NUMBER) {
                throw c.syntax("a number");
            }
            c.pos++;
            sql = (negative ? "-" : "") + n.text();
            raw = new BigDecimal(sql);
        } else if (t.kind() == SqlLexer.Kind.STRING) {
            c.pos++;
            raw = t.text();
            sql = "'" + t.text().replace("'", "''") + "'";
        } else if (t.is("TRUE") || t.is("FALSE")) {
            c.pos++;
            raw = t.is("TRUE");
            sql = t.text().toLowerCase(java.util.Locale.ROOT);
        } else if (t.is("NULL")) {
            c.pos++;
            raw = null;
            sql = "NULL";
        } else {
            throw new SqlStateException("0A000", "DEFAULT expressions other than a constant, CURRENT_TIMESTAMP, "
                    + "now(), CURRENT_DATE, gen_random_uuid() and nextval('sequence') are not supported (at \"" + t.text() + "\")");
        }
        return ColumnDefault.constant(type.coerce(raw), sql);
    }

    /** A PostgreSQL cast suffix {@code ::type[(n[, m])]} [...], as pg_dump writes after constants: ignored. */
    private static void skipCast(final DdlCursor c) {
        while (c.peek().kind() == SqlLexer.Kind.SYMBOL && c.peek().text().equals(":")
                && c.tokens.get(c.pos + 1).kind() == SqlLexer.Kind.SYMBOL && c.tokens.get(c.pos + 1).text().equals(":")) {
            c.pos += 2;
            c.identifier();
            while (c.peek().kind() == SqlLexer.Kind.WORD && !c.peek().quoted() && (c.peek().is("VARYING")
                    || c.peek().is("PRECISION") || c.peek().is("WITHOUT") || c.peek().is("WITH")
                    || c.peek().is("TIME") || c.peek().is("ZONE"))) {
                c.pos++;
            }
            if (c.accept("(")) {
                c.number();
                if (c.accept(",")) {
                    c.number();
                }
                c.expect(")");
            }
        }
    }

    /** The text of {@code ( condition )} as written, without the parentheses. */
    static String parenthesizedText(final DdlCursor c) {
        final SqlLexer.Token open = c.peek();
        c.expect("(");
        int depth = 1;
        while (true) {
            final SqlLexer.Token t = c.peek();
            if (t.kind() == SqlLexer.Kind.END) {
                throw c.syntax("\")\"");
            }
            c.pos++;
            if (t.kind() == SqlLexer.Kind.SYMBOL && t.text().equals("(")) {
                depth++;
            } else if (t.kind() == SqlLexer.Kind.SYMBOL && t.text().equals(")") && --depth == 0) {
                final String text = c.sql.substring(open.position() + 1, t.position()).trim();
                if (text.isEmpty()) {
                    throw c.syntax("a condition");
                }
                return text;
            }
        }
    }

    /**
     * Sequence options, as CREATE SEQUENCE and an identity column's {@code (...)} write them, in any order: AS
     * type, INCREMENT [BY] n, MINVALUE n | NO MINVALUE, MAXVALUE n | NO MAXVALUE, START [WITH] n, CACHE n,
     * NO CYCLE, OWNED BY NONE. CYCLE is refused (0A000).
     */
    static Ddl.SequenceOptions sequenceOptions(final DdlCursor c) {
        SqlType type = null;
        Long start = null;
        Long increment = null;
        Long min = null;
        Long max = null;
        Long cache = null;
        while (true) {
            if (c.acceptWord("AS")) {
                final SqlLexer.Token t = c.peek();
                c.pos++;
                type = switch (t.kind() == SqlLexer.Kind.WORD ? t.text() : "") {
                    case "SMALLINT", "INT2" -> SqlType.SMALLINT;
                    case "INT", "INTEGER", "INT4" -> SqlType.INTEGER;
                    case "BIGINT", "INT8" -> SqlType.BIGINT;
                    default -> throw new SqlStateException("22023", "sequence type must be smallint, integer, or "
                            + "bigint");
                };
            } else if (c.acceptWord("INCREMENT")) {
                c.acceptWord("BY");
                increment = c.longNumber();
            } else if (c.acceptWord("MINVALUE")) {
                min = c.longNumber();
            } else if (c.acceptWord("MAXVALUE")) {
                max = c.longNumber();
            } else if (c.acceptWord("START")) {
                c.acceptWord("WITH");
                start = c.longNumber();
            } else if (c.acceptWord("CACHE")) {
                cache = c.longNumber();
                if (cache < 1) {
                    throw new SqlStateException("22023", "CACHE (" + cache + ") must be greater than zero");
                }
            } else if (c.acceptWord("NO")) {
                if (!c.acceptWord("MINVALUE") && !c.acceptWord("MAXVALUE") && !c.acceptWord("CYCLE")) {
                    throw c.syntax("MINVALUE, MAXVALUE or CYCLE");
                }
            } else if (c.peek().is("CYCLE")) {
                throw new SqlStateException("0A000", "sequences that CYCLE are not supported");
            } else if (c.acceptWord("OWNED")) {
                c.expectWord("BY");
                if (!c.acceptWord("NONE")) {
                    throw new SqlStateException("0A000", "OWNED BY a column is not supported (SERIAL and identity "
                            + "columns own their sequences)");
                }
            } else {
                return new Ddl.SequenceOptions(type, start, increment, min, max, cache);
            }
        }
    }

    /** A sequence name as {@code nextval} takes it: {@code 'name'}, {@code 'schema.name'}, quoted parts kept. */
    static String[] sequenceName(final String text) {
        final List<SqlLexer.Token> t = SqlLexer.tokenize(text);
        final boolean one = t.size() == 2 && t.get(0).kind() == SqlLexer.Kind.WORD;
        final boolean two = t.size() == 4 && t.get(0).kind() == SqlLexer.Kind.WORD && t.get(1).text().equals(".")
                && t.get(2).kind() == SqlLexer.Kind.WORD;
        if (!one && !two) {
            throw new SqlStateException("42602", "invalid name syntax: \"" + text + "\"");
        }
        return one ? new String[] {null, t.get(0).name()} : new String[] {t.get(0).name(), t.get(2).name()};
    }

    private static SqlStateException mismatch(final ColumnType type, final String given) {
        return new SqlStateException("42804", "column is of type " + type.sqlName().toLowerCase(java.util.Locale.ROOT)
                + " but default expression is of type " + given);
    }
}
