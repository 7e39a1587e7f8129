package io.meldb.sql.pg;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;

/**
 * Turns PostgreSQL's spelling into the SQL MeldDB's planner reads: numbered parameters ({@code $1}, {@code $2}, in
 * any order and repeated) become positional {@code ?} with a map from each {@code ?} to its parameter number; the
 * cast operator {@code expr::type} becomes {@code CAST(expr AS type)} with PostgreSQL's type names (int4, float8,
 * text, bool, ...) translated (json and jsonb are text, a literal checked as JSON); typed literals
 * ({@code TIMESTAMP '2024-01-01 10:00'}) take PostgreSQL's forms; interval literals become the standard's
 * ({@link PgIntervals}). String literals, quoted identifiers and comments are otherwise left
 * as they are.
 */
final class PgSqlRewriter {
    /** The rewritten SQL; {@code parameterOf[i]} is the 0-based PostgreSQL parameter of the i-th {@code ?}. */
    record Rewritten(String sql, int[] parameterOf, int parameterCount) {
    }

    private PgSqlRewriter() {
    }

    private static final java.util.regex.Pattern EXPLAIN = java.util.regex.Pattern.compile(
            "^\\s*EXPLAIN\\s+(?!PLAN\\b)(?:VERBOSE\\s+)?", java.util.regex.Pattern.CASE_INSENSITIVE);

    static Rewritten rewrite(final String original) {
        String sql = original;
        final String analyzed = io.meldb.sql.server.ExplainAnalyze.statement(sql);
        if (analyzed != null) {
            sql = "EXPLAIN ANALYZE " + analyzed; // the gateway runs it (ExplainAnalyze); its statement is rewritten
        } else if (EXPLAIN.matcher(sql).find()) {
            // PostgreSQL's EXPLAIN stmt is Calcite's EXPLAIN PLAN FOR stmt
            sql = EXPLAIN.matcher(sql).replaceFirst("EXPLAIN PLAN FOR ");
        }
        sql = PgIntervals.rewrite(sql);
        if (sql.indexOf('$') < 0 && !sql.contains("::") && !TYPED_LITERAL.matcher(sql).find()) {
            return new Rewritten(sql, new int[0], 0);
        }
        final StringBuilder out = new StringBuilder(sql.length() + 16);
        final List<Integer> parameterOf = new ArrayList<>();
        final Deque<Integer> opens = new ArrayDeque<>();
        int operandStart = -1;
        final int n = sql.length();
        int i = 0;
        while (i < n) {
            final char c = sql.charAt(i);
            if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                final int end = sql.indexOf('\n', i);
                final int stop = end < 0 ? n : end;
                out.append(sql, i, stop);
                i = stop;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                final int end = sql.indexOf("*/", i + 2);
                final int stop = end < 0 ? n : end + 2;
                out.append(sql, i, stop);
                i = stop;
            } else if (c == '\'' || c == '"') {
                final boolean escapes = c == '\'' && i > 0 && (sql.charAt(i - 1) == 'E' || sql.charAt(i - 1) == 'e');
                final int stop = PgSqlSplitter.skipQuoted(sql, i, c, escapes);
                final int typedWord = c == '\'' && !escapes ? typedLiteralWordLength(out) : 0;
                if (typedWord > 0) {
                    // TIMESTAMP '2024-01-01 10:00': PostgreSQL's forms of the text, read as a cast of it reads them
                    final String typed = Character.toLowerCase(out.charAt(out.length() - typedWord)) == 't'
                            ? "TIMESTAMP" : "DATE";
                    out.setLength(out.length() - typedWord);
                    operandStart = out.length();
                    out.append(datetimeLiteral(sql.substring(i, stop), typed));
                } else {
                    operandStart = escapes ? out.length() - 1 : out.length();
                    out.append(sql, i, stop);
                }
                i = stop;
            } else if (c == '$' && i + 1 < n && Character.isDigit(sql.charAt(i + 1))
                    && (i == 0 || !Character.isLetterOrDigit(sql.charAt(i - 1)))) {
                final int j = parameter(sql, i, parameterOf);
                operandStart = out.length();
                out.append('?');
                i = j;
            } else if (c == ':' && i + 1 < n && sql.charAt(i + 1) == ':' && operandStart >= 0) {
                final int[] end = new int[1];
                final String type = castType(sql, i + 2, end);
                final String operand = out.substring(operandStart);
                out.setLength(operandStart);
                out.append(datetimeLiteral(operand, type));
                i = end[0];
            } else if (c == '(') {
                // a function call's parentheses belong to the name before them
                opens.push(operandStart >= 0 && out.length() > operandStart ? operandStart : out.length());
                out.append(c);
                operandStart = -1;
                i++;
            } else if (c == ')') {
                operandStart = opens.isEmpty() ? -1 : opens.pop();
                out.append(c);
                i++;
            } else if (Character.isLetterOrDigit(c) || c == '_') {
                final int start = i;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_'
                        || sql.charAt(i) == '.' || sql.charAt(i) == '$')) {
                    i++;
                }
                // a qualified name or a function call's name keeps the operand start of its first part
                if (!(start > 0 && sql.charAt(start - 1) == '.')) {
                    operandStart = out.length();
                }
                out.append(sql, start, i);
            } else {
                if (!Character.isWhitespace(c)) {
                    operandStart = -1;
                }
                out.append(c);
                i++;
            }
        }
        if (parameterOf.isEmpty()) {
            return new Rewritten(out.toString(), new int[0], 0);
        }
        final int[] map = new int[parameterOf.size()];
        for (int k = 0; k < map.length; k++) {
            map[k] = parameterOf.get(k);
        }
        int count = 0;
        for (int p : map) {
            count = Math.max(count, p + 1);
        }
        return new Rewritten(out.toString(), map, count);
    }

    /**
     * {@code CAST(operand AS type)}; a string literal cast to a date or time type becomes that type's literal,
     * with a zone offset dropped as PostgreSQL drops it for types without a zone (clients such as pgjdbc send
     * {@code '2024-02-29 +00'::date}); one cast to numeric without a precision becomes the exact number.
     */
    private static String datetimeLiteral(final String operand, final String type) {
        if (operand.length() >= 2 && operand.charAt(0) == '\'' && operand.endsWith("'")
                && operand.indexOf('\'', 1) == operand.length() - 1) {
            final String text = operand.substring(1, operand.length() - 1);
            try {
                switch (type) {
                    case "DECIMAL":
                        // numeric without a precision keeps every digit: the exact literal, not DECIMAL(19, 0)
                        return "(" + new java.math.BigDecimal(text.trim()).toPlainString() + ")";
                    case "DATE":
                        return "DATE '" + ((java.sql.Date) PgParameters.convertText(text, java.sql.Types.DATE))
                                .toLocalDate() + "'";
                    case "INTERVAL": {
                        final String literal = PgIntervals.literal(text);
                        if (literal != null) {
                            return literal;
                        }
                        break;
                    }
                    case "JSON", "JSONB":
                        // checked as PostgreSQL's json_in checks it; the value is its text (MeldDB keeps JSON so),
                        // cast to the type name the planner reads as text and the result keeps (DeclaredTypes)
                        io.meldb.sql.codec.ColumnType.of(io.meldb.sql.codec.SqlType.JSON).coerce(text);
                        return "CAST(" + operand + " AS " + type.toLowerCase(Locale.ROOT) + ")";
                    case "TIMESTAMP":
                        return "TIMESTAMP '" + PgValues.timestampText(((java.sql.Timestamp) PgParameters.convertText(
                                text, java.sql.Types.TIMESTAMP)).toLocalDateTime()) + "'";
                    default:
                        break;
                }
            } catch (io.meldb.sql.SqlStateException e) {
                if (type.startsWith("JSON") || type.equals("INTERVAL")) {
                    throw e; // no CAST would: JSON is text to the planner, and an interval's text is not Calcite's
                }
            } catch (RuntimeException e) {
                // not a valid literal: the CAST reports it
            }
        }
        return "CAST(" + operand + " AS " + (type.startsWith("JSON") ? type.toLowerCase(Locale.ROOT) : type) + ")";
    }

    /** Reads the parameter {@code $n} at {@code at} into {@code parameterOf} (0-based); answers where it ended. */
    private static int parameter(final String sql, final int at, final List<Integer> parameterOf) {
        int end = at + 1;
        long number = 0;
        while (end < sql.length() && Character.isDigit(sql.charAt(end))) {
            number = Math.min(number * 10 + Character.digit(sql.charAt(end), 10), Integer.MAX_VALUE);
            end++;
        }
        if (number < 1 || number > MAX_PARAMETERS) {
            throw noSuchParameter(sql.substring(at, end));
        }
        parameterOf.add((int) number - 1);
        return end;
    }

    /**
     * The most parameters a statement can have: a Bind message counts its values in an unsigned Int16, so $65536 and
     * above could never be given a value.
     */
    static final int MAX_PARAMETERS = 65_535;

    /**
     * $0, or one above {@link #MAX_PARAMETERS}: refused while the text is read, before any planning (a statement
     * naming $100000 once spent 46 s of CPU before its 54001). PostgreSQL 15 says 42P02 undefined_parameter, "there
     * is no parameter $0", for $0 and for a number past its int range; for $100000 it answers 42P18 for the untyped
     * $1 and can never bind it. MeldDB answers 42P02 for any number outside 1..65535.
     */
    private static io.meldb.sql.SqlStateException noSuchParameter(final String written) {
        return new io.meldb.sql.SqlStateException("42P02", "there is no parameter " + written, "a statement has "
                + "parameters $1 to $" + MAX_PARAMETERS + " at most (a Bind message cannot carry more)", null);
    }

    /** A typed literal's type word and its quote: {@code TIMESTAMP '...'}, {@code DATE '...'}. */
    private static final java.util.regex.Pattern TYPED_LITERAL = java.util.regex.Pattern.compile(
            "(?i)\\b(timestamp|date)\\s*'");

    /** The length of the trailing "timestamp"/"date" word of {@code out} with the blanks after it, or 0. */
    private static int typedLiteralWordLength(final CharSequence out) {
        int end = out.length();
        while (end > 0 && Character.isWhitespace(out.charAt(end - 1))) {
            end--;
        }
        for (String word : new String[] {"timestamp", "date"}) {
            final int start = end - word.length();
            if (start < 0) {
                continue;
            }
            boolean same = true;
            for (int k = 0; k < word.length() && same; k++) {
                same = Character.toLowerCase(out.charAt(start + k)) == word.charAt(k);
            }
            final char before = start == 0 ? ' ' : out.charAt(start - 1);
            if (same && !Character.isLetterOrDigit(before) && before != '_' && before != '.' && before != '"') {
                return out.length() - start;
            }
        }
        return 0;
    }

    /** Reads the type after "::" at {@code from}; answers it in MeldDB's SQL and where it ended. */
    private static String castType(final String sql, final int from, final int[] end) {
        int i = from;
        final int n = sql.length();
        while (i < n && Character.isWhitespace(sql.charAt(i))) {
            i++;
        }
        final StringBuilder words = new StringBuilder();
        int last = i;
        while (true) {
            int j = i;
            while (j < n && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_'
                    || sql.charAt(j) == '.' || sql.charAt(j) == '"')) {
                j++;
            }
            if (j == i) {
                break;
            }
            final String word = sql.substring(i, j).replace("\"", "").toLowerCase(Locale.ROOT);
            final String prev = words.toString();
            final boolean continues = prev.isEmpty() || prev.equals("double") || prev.equals("character")
                    || prev.equals("char") || prev.endsWith("timestamp") || prev.endsWith("time")
                    || prev.endsWith(" with") || prev.endsWith(" without") || prev.endsWith("with time")
                    || prev.endsWith("without time");
            if (!continues) {
                break;
            }
            words.append(prev.isEmpty() ? "" : " ").append(word);
            last = j;
            i = j;
            while (i < n && Character.isWhitespace(sql.charAt(i))) {
                i++;
            }
        }
        String args = "";
        i = last;
        int k = i;
        while (k < n && Character.isWhitespace(sql.charAt(k))) {
            k++;
        }
        if (k < n && sql.charAt(k) == '(') {
            final int close = sql.indexOf(')', k);
            if (close > 0) {
                args = sql.substring(k, close + 1);
                i = close + 1;
            }
        }
        end[0] = i;
        String name = words.toString();
        final int dot = name.lastIndexOf('.');
        if (dot >= 0) {
            name = name.substring(dot + 1);
        }
        return switch (name) {
            case "int2", "smallint" -> "SMALLINT";
            case "int4", "int", "integer", "oid" -> "INTEGER";
            case "int8", "bigint" -> "BIGINT";
            case "float4", "real" -> "REAL";
            case "float8", "double precision", "float" -> "DOUBLE";
            case "numeric", "decimal" -> "DECIMAL" + args;
            case "text", "unknown", "name" -> "VARCHAR";
            case "regproc" -> "regproc";
            case "regnamespace" -> "regnamespace";
            case "regclass" -> "regclass";
            case "regtype" -> "regtype";
            case "varchar", "character varying" -> "VARCHAR" + args;
            case "bpchar", "char", "character" -> "CHAR" + args;
            case "bool", "boolean" -> "BOOLEAN";
            case "date" -> "DATE";
            case "time", "time without time zone" -> "TIME";
            case "timestamp", "timestamp without time zone", "timestamptz", "timestamp with time zone" ->
                    "TIMESTAMP";
            case "bytea" -> "VARBINARY";
            case "json" -> "JSON";
            case "jsonb" -> "JSONB";
            default -> name.toUpperCase(Locale.ROOT) + args;
        };
    }
}
