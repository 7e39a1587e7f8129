package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.calcite.MeldLex;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.fun.SqlLikeOperator;
import org.apache.calcite.sql.parser.SqlParseException;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A CHECK constraint's condition, compiled once into a tree of small evaluators over a row (the Java values a
 * {@link TableStore} row holds). The conditions constraints are made of: comparisons, AND/OR/NOT with SQL's
 * three-valued logic, IS [NOT] NULL, BETWEEN, IN lists, LIKE, arithmetic, unary minus, string, numeric and
 * boolean literals, and LENGTH/CHAR_LENGTH, UPPER, LOWER, ABS. Anything else is refused when the table is created
 * (0A000), so a constraint is never stored that could not be enforced; an unknown column is 42703.
 */
public final class CheckExpression {
    private static final int CACHE_SIZE = 256;
    private static final Map<String, CheckExpression> CACHE = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(final Map.Entry<String, CheckExpression> eldest) {
            return size() > CACHE_SIZE;
        }
    };

    /** A compiled sub-expression. */
    private interface Node {
        Object eval(Object[] row);
    }

    private final Node root;

    private CheckExpression(final Node root) {
        this.root = root;
    }

    /** The condition {@code sql} over {@code columns}, compiled (cached per table definition and text). */
    public static CheckExpression of(final String sql, final List<ColumnDef> columns) {
        final StringBuilder k = new StringBuilder(sql).append('\u0000');
        for (ColumnDef c : columns) {
            k.append(c.name()).append('\u0000');
        }
        final String key = k.toString();
        synchronized (CACHE) {
            final CheckExpression cached = CACHE.get(key);
            if (cached != null) {
                return cached;
            }
        }
        final SqlNode node;
        try {
            node = MeldLex.parser(sql).parseExpression();
        } catch (SqlParseException e) {
            throw new SqlStateException("42601", "syntax error in CHECK (" + sql + "): "
                    + e.getMessage().lines().findFirst().orElse(""));
        }
        final CheckExpression compiled = new CheckExpression(compile(node, columns));
        synchronized (CACHE) {
            CACHE.put(key, compiled);
        }
        return compiled;
    }

    /** The column names {@code sql} refers to, in order of first appearance. */
    public static List<String> columnsOf(final String sql) {
        final List<String> out = new ArrayList<>();
        try {
            MeldLex.parser(sql).parseExpression().accept(new org.apache.calcite.sql.util.SqlBasicVisitor<Void>() {
                @Override
                public Void visit(final SqlIdentifier id) {
                    if (!out.contains(id.getSimple())) {
                        out.add(id.getSimple());
                    }
                    return null;
                }
            });
        } catch (SqlParseException | RuntimeException e) {
            // reported by of()
        }
        return out;
    }

    /** Whether the row passes: the condition is true or NULL. */
    public boolean passes(final Object[] row) {
        final Object v = root.eval(row);
        return v == null || Boolean.TRUE.equals(v);
    }

    private static Node compile(final SqlNode node, final List<ColumnDef> columns) {
        if (node instanceof SqlIdentifier id) {
            if (!id.isSimple()) {
                throw unsupported(node);
            }
            for (int i = 0; i < columns.size(); i++) {
                if (columns.get(i).name().equals(id.getSimple())) {
                    final int c = i;
                    return row -> row[c];
                }
            }
            throw new SqlStateException("42703", "column \"" + id.getSimple() + "\" does not exist");
        }
        if (node instanceof SqlNumericLiteral n) {
            final BigDecimal v = n.bigDecimalValue();
            return row -> v;
        }
        if (node instanceof SqlCharStringLiteral s) {
            final String v = s.getValueAs(String.class);
            return row -> v;
        }
        if (node instanceof SqlLiteral l) {
            if (l.getValue() == null) {
                return row -> null;
            }
            if (l.getValue() instanceof Boolean b) {
                return row -> b;
            }
            throw unsupported(node);
        }
        if (!(node instanceof SqlBasicCall call)) {
            throw unsupported(node);
        }
        if (call.getKind() == SqlKind.CAST && call.operandCount() == 2
                && call.operand(1) instanceof org.apache.calcite.sql.SqlDataTypeSpec spec) {
            // pg_dump writes CHECK ((total >= (0)::numeric)): a cast to a number or to text
            final Node a = compile(call.operand(0), columns);
            final String type = spec.getTypeName().getSimple().toUpperCase(Locale.ROOT);
            switch (type) {
                case "DECIMAL", "NUMERIC", "INTEGER", "INT", "BIGINT", "SMALLINT", "DOUBLE", "REAL", "FLOAT":
                    return row -> number(a.eval(row));
                case "VARCHAR", "CHAR", "TEXT":
                    return row -> {
                        final Object v = a.eval(row);
                        return v == null ? null : v.toString();
                    };
                default:
                    throw unsupported(node);
            }
        }
        final List<Node> ops = new ArrayList<>();
        for (SqlNode o : call.getOperandList()) {
            if (o instanceof SqlNodeList list) {
                for (SqlNode item : list) {
                    ops.add(compile(item, columns));
                }
            } else {
                ops.add(compile(o, columns));
            }
        }
        final SqlKind kind = call.getKind();
        switch (kind) {
            case AND:
                return row -> {
                    boolean unknown = false;
                    for (Node o : ops) {
                        final Object v = o.eval(row);
                        if (Boolean.FALSE.equals(v)) {
                            return false;
                        }
                        unknown |= v == null;
                    }
                    return unknown ? null : Boolean.TRUE;
                };
            case OR:
                return row -> {
                    boolean unknown = false;
                    for (Node o : ops) {
                        final Object v = o.eval(row);
                        if (Boolean.TRUE.equals(v)) {
                            return true;
                        }
                        unknown |= v == null;
                    }
                    return unknown ? null : Boolean.FALSE;
                };
            case NOT: {
                final Node a = ops.get(0);
                return row -> {
                    final Object v = a.eval(row);
                    return v == null ? null : !(Boolean) v;
                };
            }
            case IS_NULL:
                return row -> ops.get(0).eval(row) == null;
            case IS_NOT_NULL:
                return row -> ops.get(0).eval(row) != null;
            case EQUALS, NOT_EQUALS, LESS_THAN, LESS_THAN_OR_EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL: {
                final Node a = ops.get(0);
                final Node b = ops.get(1);
                return row -> {
                    final Integer c = compare(a.eval(row), b.eval(row));
                    if (c == null) {
                        return null;
                    }
                    return switch (kind) {
                        case EQUALS -> c == 0;
                        case NOT_EQUALS -> c != 0;
                        case LESS_THAN -> c < 0;
                        case LESS_THAN_OR_EQUAL -> c <= 0;
                        case GREATER_THAN -> c > 0;
                        default -> c >= 0;
                    };
                };
            }
            case BETWEEN: {
                if (ops.size() != 3) {
                    throw unsupported(node);
                }
                final boolean negated = ((org.apache.calcite.sql.fun.SqlBetweenOperator) call.getOperator())
                        .isNegated();
                return row -> {
                    final Object v = ops.get(0).eval(row);
                    final Integer lo = compare(v, ops.get(1).eval(row));
                    final Integer hi = compare(v, ops.get(2).eval(row));
                    if (lo == null || hi == null) {
                        return null;
                    }
                    return (lo >= 0 && hi <= 0) != negated;
                };
            }
            case IN, NOT_IN: {
                final boolean negated = kind == SqlKind.NOT_IN;
                return row -> {
                    final Object v = ops.get(0).eval(row);
                    if (v == null) {
                        return null;
                    }
                    boolean unknown = false;
                    for (int i = 1; i < ops.size(); i++) {
                        final Integer c = compare(v, ops.get(i).eval(row));
                        if (c == null) {
                            unknown = true;
                        } else if (c == 0) {
                            return !negated;
                        }
                    }
                    return unknown ? null : negated;
                };
            }
            case LIKE: {
                if (ops.size() != 2 || !(call.getOperator() instanceof SqlLikeOperator like)) {
                    throw unsupported(node);
                }
                final boolean negated = like.isNegated();
                final boolean caseInsensitive = like.getName().contains("ILIKE");
                return row -> {
                    final Object v = ops.get(0).eval(row);
                    final Object p = ops.get(1).eval(row);
                    if (v == null || p == null) {
                        return null;
                    }
                    final Pattern pattern = Pattern.compile(LikePattern.toRegex(p.toString()),
                            Pattern.DOTALL | (caseInsensitive ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0));
                    return pattern.matcher(v.toString()).matches() != negated;
                };
            }
            case PLUS, MINUS, TIMES, DIVIDE, MOD: {
                final Node a = ops.get(0);
                final Node b = ops.get(1);
                return row -> {
                    final BigDecimal x = number(a.eval(row));
                    final BigDecimal y = number(b.eval(row));
                    if (x == null || y == null) {
                        return null;
                    }
                    if ((kind == SqlKind.DIVIDE || kind == SqlKind.MOD) && y.signum() == 0) {
                        throw new SqlStateException("22012", "division by zero");
                    }
                    return switch (kind) {
                        case PLUS -> x.add(y);
                        case MINUS -> x.subtract(y);
                        case TIMES -> x.multiply(y);
                        case DIVIDE -> x.divide(y, MathContext.DECIMAL128);
                        default -> x.remainder(y);
                    };
                };
            }
            case MINUS_PREFIX: {
                final Node a = ops.get(0);
                return row -> {
                    final BigDecimal x = number(a.eval(row));
                    return x == null ? null : x.negate();
                };
            }
            case PLUS_PREFIX:
                return ops.get(0);
            default:
                break;
        }
        final String fn = call.getOperator().getName().toUpperCase(Locale.ROOT);
        if (ops.size() == 1) {
            final Node a = ops.get(0);
            switch (fn) {
                case "LENGTH", "CHAR_LENGTH", "CHARACTER_LENGTH":
                    return row -> {
                        final Object v = a.eval(row);
                        return v == null ? null : BigDecimal.valueOf(v.toString().codePointCount(0,
                                v.toString().length()));
                    };
                case "UPPER":
                    return row -> {
                        final Object v = a.eval(row);
                        return v == null ? null : v.toString().toUpperCase(Locale.ROOT);
                    };
                case "LOWER":
                    return row -> {
                        final Object v = a.eval(row);
                        return v == null ? null : v.toString().toLowerCase(Locale.ROOT);
                    };
                case "ABS":
                    return row -> {
                        final BigDecimal x = number(a.eval(row));
                        return x == null ? null : x.abs();
                    };
                default:
                    break;
            }
        }
        throw unsupported(node);
    }

    private static SqlStateException unsupported(final SqlNode node) {
        return new SqlStateException("0A000", "CHECK constraints may use columns, literals, casts to numbers and text, "
                + "comparisons, AND/OR/NOT, "
                + "IS NULL, BETWEEN, IN, LIKE, arithmetic and LENGTH/UPPER/LOWER/ABS; not: " + node);
    }

    /** SQL comparison: null when either side is NULL. Numbers compare as numbers, everything else as itself. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Integer compare(final Object a, final Object b) {
        if (a == null || b == null) {
            return null;
        }
        if (a instanceof Number || b instanceof Number) {
            final BigDecimal x = number(a);
            final BigDecimal y = number(b);
            return x.compareTo(y);
        }
        if (a instanceof String x && b instanceof String y) {
            return stripTrailingSpaces(x).compareTo(stripTrailingSpaces(y));
        }
        if (a.getClass() == b.getClass() && a instanceof Comparable c) {
            return c.compareTo(b);
        }
        throw new SqlStateException("42883", "CHECK cannot compare " + a.getClass().getSimpleName() + " with "
                + b.getClass().getSimpleName());
    }

    private static BigDecimal number(final Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof BigDecimal d) {
            return d;
        }
        if (v instanceof Double || v instanceof Float) {
            return BigDecimal.valueOf(((Number) v).doubleValue());
        }
        if (v instanceof Number n) {
            return BigDecimal.valueOf(n.longValue());
        }
        try {
            return new BigDecimal(v.toString().trim());
        } catch (NumberFormatException e) {
            throw new SqlStateException("22P02", "invalid input syntax for type numeric: \"" + v + "\"");
        }
    }

    private static String stripTrailingSpaces(final String s) {
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == ' ') {
            end--;
        }
        return s.substring(0, end);
    }
}
