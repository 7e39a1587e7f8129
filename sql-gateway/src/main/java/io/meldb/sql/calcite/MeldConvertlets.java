package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.sql2rel.SqlRexConvertlet;
import org.apache.calcite.sql2rel.SqlRexConvertletTable;
import org.apache.calcite.sql2rel.StandardConvertletTable;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Calcite's conversion of parsed SQL into expressions, with PostgreSQL's meanings where Calcite's differ: a boolean
 * cast to a string is 'true'/'false'; exp, ln, log and power of numerics are refused (PostgreSQL computes them as
 * numerics, which MeldDB cannot yet); casts between boolean and floating-point numbers (42846) and {@code %} of
 * floating-point numbers (42883) are refused as PostgreSQL refuses them; text to bytea ({@link PgBytea}), text to
 * uuid and overlay, repeat, chr and
 * substring by pattern are PostgreSQL's ({@link PgScalars}); and numeric division: {@code a / b} where
 * both are exact numbers and one is a decimal becomes {@link PgNumericOperators#DIVIDE} over numerics (Calcite
 * divides to 16 significant digits, PostgreSQL to at least 16 and the operands' scales: {@code 1/3.0} is
 * 0.33333333333333333333). It happens here, before planning, so that constant folding computes PostgreSQL's value
 * too. {@code pg_typeof(x)} is the name of x's type ({@link PgTypeOf}). Everything else converts as Calcite's
 * standard table converts it.
 */
public final class MeldConvertlets implements SqlRexConvertletTable {
    public static final MeldConvertlets INSTANCE = new MeldConvertlets();

    private static final SqlRexConvertlet DIVIDE = (cx, call) -> {
        final RexNode a = cx.convertExpression(call.operand(0));
        final RexNode b = cx.convertExpression(call.operand(1));
        if (!numericOperands(a.getType(), b.getType())) {
            return MeldConvertlets.FLOAT_ARITHMETIC.convertCall(cx, call);
        }
        final RexBuilder rex = cx.getRexBuilder();
        final RelDataType numeric = PgNumericType.of(rex.getTypeFactory(), false);
        return rex.makeCall(PgNumericOperators.DIVIDE, toNumeric(rex, numeric, a), toNumeric(rex, numeric, b));
    };

    /**
     * {@code + - * /} as Calcite converts them, except that double precision arithmetic runs through
     * {@link PgFloatArithmetic}'s checked operators (22003 on overflow, 22012 on division by zero).
     */
    private static final SqlRexConvertlet FLOAT_ARITHMETIC = (cx, call) -> {
        final RexNode standard = StandardConvertletTable.INSTANCE.get(call).convertCall(cx, call);
        final RelDataType validated = cx.getValidator().getValidatedNodeTypeIfKnown(call);
        if (validated != null && validated.getSqlTypeName() == SqlTypeName.TIMESTAMP
                && standard instanceof org.apache.calcite.rex.RexCall dated && dated.getOperands().size() == 2
                && dated.getOperands().stream().anyMatch(o -> o.getType().getSqlTypeName() == SqlTypeName.DATE)
                && dated.getOperands().stream().anyMatch(o -> SqlTypeUtil.isInterval(o.getType()))) {
            // date ± interval: the date as a timestamp at midnight, so that the result is a timestamp
            final RexBuilder rex = cx.getRexBuilder();
            final java.util.List<RexNode> operands = new java.util.ArrayList<>();
            for (RexNode o : dated.getOperands()) {
                if (o.getType().getSqlTypeName() == SqlTypeName.DATE) {
                    operands.add(rex.makeCast(rex.getTypeFactory().createTypeWithNullability(
                            rex.getTypeFactory().createSqlType(SqlTypeName.TIMESTAMP, 3), o.getType().isNullable()), o));
                } else {
                    // date - interval is the timestamp plus the negated interval
                    operands.add(call.getKind() == SqlKind.MINUS
                            ? rex.makeCall(SqlStdOperatorTable.UNARY_MINUS, o) : o);
                }
            }
            final RelDataType timestamp = rex.getTypeFactory().createTypeWithNullability(
                    rex.getTypeFactory().createSqlType(SqlTypeName.TIMESTAMP, 3), standard.getType().isNullable());
            return rex.makeCast(validated, rex.makeCall(timestamp, SqlStdOperatorTable.DATETIME_PLUS, operands),
                    true, false);
        }
        if (!(standard instanceof org.apache.calcite.rex.RexCall c) || c.getOperands().size() != 2
                || standard.getType().getSqlTypeName() != SqlTypeName.DOUBLE
                || !SqlTypeUtil.isNumeric(c.getOperands().get(0).getType())
                || !SqlTypeUtil.isNumeric(c.getOperands().get(1).getType())) {
            return standard;
        }
        final org.apache.calcite.sql.SqlOperator checked = switch (c.getKind()) {
            case PLUS -> PgFloatArithmetic.PLUS;
            case MINUS -> PgFloatArithmetic.MINUS;
            case TIMES -> PgFloatArithmetic.TIMES;
            case DIVIDE -> PgFloatArithmetic.DIVIDE;
            default -> null;
        };
        if (checked == null) {
            return standard;
        }
        final RexBuilder rex = cx.getRexBuilder();
        // Calcite's arithmetic mixes types (double + decimal); the checked operators take two doubles
        final java.util.List<RexNode> operands = new java.util.ArrayList<>(2);
        for (RexNode o : c.getOperands()) {
            operands.add(o.getType().getSqlTypeName() == SqlTypeName.DOUBLE ? o : rex.makeCast(rex.getTypeFactory()
                    .createTypeWithNullability(standard.getType(), o.getType().isNullable()), o));
        }
        return rex.makeCast(standard.getType(), rex.makeCall(checked, operands), true, false);
    };

    /**
     * power(a, b) and a ^ b: of floating-point numbers as Calcite computes them; of numerics PostgreSQL answers a
     * numeric with its own scale rules, which MeldDB does not have yet, so that is refused rather than answered as a
     * double.
     */
    private static final SqlRexConvertlet POWER = (cx, call) -> {
        // the base decides: sqrt(x) reaches here as power(x, 0.5)
        for (SqlNode operand : call.getOperandList().subList(0, 1)) {
            if (SqlTypeUtil.isDecimal(cx.getValidator().deriveType(cx.getValidator().getEmptyScope(), operand))) {
                throw new SqlStateException("0A000", "power() and ^ of numeric values are not supported yet: cast "
                        + "the operands to double precision");
            }
        }
        return StandardConvertletTable.INSTANCE.get(call).convertCall(cx, call);
    };

    /**
     * extract as PostgreSQL computes it, a numeric ({@link PgResultTypes}): seconds and the epoch of a timestamp or a
     * time with their fraction to microseconds (MeldDB keeps milliseconds: {@code 56.250000}), milliseconds with 3
     * places, microseconds whole; every other field is Calcite's integer as a numeric.
     */
    private static final SqlRexConvertlet EXTRACT = (cx, call) -> {
        final RexNode standard = StandardConvertletTable.INSTANCE.get(call).convertCall(cx, call);
        final RelDataType validated = cx.getValidator().getValidatedNodeTypeIfKnown(call);
        final org.apache.calcite.avatica.util.TimeUnitRange unit = extractUnit(call.operand(0));
        if (validated == null || unit == null) {
            return standard;
        }
        if (PgResultTypes.datePart(call) && validated.getSqlTypeName() == SqlTypeName.DOUBLE) {
            // date_part: extract's value as double precision
            final RexNode numeric = extractNumeric(cx, standard, call, unit);
            return cx.getRexBuilder().makeCast(validated, numeric, true, false);
        }
        if (!PgNumericType.is(validated)) {
            return standard;
        }
        return extractNumeric(cx, standard, call, unit);
    };

    /**
     * The field extract or date_part reads: {@code extract(second FROM ...)}'s keyword, or date_part's text literal
     * ({@code date_part('second', ...)}, also plural as PostgreSQL takes it); null for anything else.
     */
    private static org.apache.calcite.avatica.util.TimeUnitRange extractUnit(final SqlNode unit) {
        if (unit instanceof org.apache.calcite.sql.SqlIntervalQualifier q) {
            return q.timeUnitRange;
        }
        if (unit instanceof org.apache.calcite.sql.SqlLiteral literal
                && literal.getValue() instanceof org.apache.calcite.util.NlsString text) {
            String name = text.getValue().trim().toUpperCase(java.util.Locale.ROOT);
            if (name.endsWith("S") && !name.equals("EPOCH")) {
                name = name.substring(0, name.length() - 1);
            }
            try {
                return org.apache.calcite.avatica.util.TimeUnitRange.valueOf(name);
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
        return null;
    }

    /** extract's numeric value of a call whose Calcite conversion is {@code standard}. */
    private static RexNode extractNumeric(final org.apache.calcite.sql2rel.SqlRexContext cx, final RexNode standard,
                                          final SqlCall call, final org.apache.calcite.avatica.util.TimeUnitRange unit) {
        final RexBuilder rex = cx.getRexBuilder();
        final RelDataType numeric = PgNumericType.of(rex.getTypeFactory(), standard.getType().isNullable());
        final RexNode operand = cx.convertExpression(call.operand(1));
        final SqlTypeName source = operand.getType().getSqlTypeName();
        final boolean clock = source == SqlTypeName.TIMESTAMP || source == SqlTypeName.TIME
                || source == SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE;
        final org.apache.calcite.avatica.util.TimeUnitRange range = unit;
        if (!clock || range.endUnit != null) {
            return rex.makeCast(numeric, standard, true, false);
        }
        // milliseconds of the minute, 0..59,999
        final RexNode millis = rex.makeCast(numeric, rex.makeCall(SqlStdOperatorTable.EXTRACT,
                rex.makeFlag(org.apache.calcite.avatica.util.TimeUnitRange.MILLISECOND), operand), true, false);
        switch (range.startUnit) {
            case SECOND:
                return rex.makeCall(SqlStdOperatorTable.MULTIPLY, millis, decimal(rex, "0.001000"));
            case MILLISECOND:
                // three places; a product with 1.000 would be simplified away
                return rex.makeCast(numeric, rex.makeCast(rex.getTypeFactory().createTypeWithNullability(
                        rex.getTypeFactory().createSqlType(SqlTypeName.DECIMAL, 8, 3), numeric.isNullable()),
                        millis, true, false), true, false);
            case MICROSECOND:
                return rex.makeCall(SqlStdOperatorTable.MULTIPLY, millis, decimal(rex, "1000"));
            case EPOCH: {
                if (source == SqlTypeName.TIME) {
                    return rex.makeCast(numeric, standard, true, false);
                }
                final RexNode fraction = rex.makeCall(SqlStdOperatorTable.MULTIPLY,
                        rex.makeCall(SqlStdOperatorTable.MOD, millis, decimal(rex, "1000")), decimal(rex, "0.001000"));
                // Calcite's epoch truncates toward zero; before 1970 a fraction belongs to the second below
                final RexNode epochZero = source == SqlTypeName.TIMESTAMP
                        ? rex.makeTimestampLiteral(new org.apache.calcite.util.TimestampString(1970, 1, 1, 0, 0, 0), 3)
                        : rex.makeTimestampWithLocalTimeZoneLiteral(
                                new org.apache.calcite.util.TimestampString(1970, 1, 1, 0, 0, 0), 3);
                final RexNode below = rex.makeCall(SqlStdOperatorTable.CASE,
                        rex.makeCall(SqlStdOperatorTable.AND,
                                rex.makeCall(SqlStdOperatorTable.LESS_THAN, operand, epochZero),
                                rex.makeCall(SqlStdOperatorTable.NOT_EQUALS, fraction, decimal(rex, "0"))),
                        decimal(rex, "1"), decimal(rex, "0"));
                return rex.makeCall(SqlStdOperatorTable.MINUS, rex.makeCall(SqlStdOperatorTable.PLUS,
                        rex.makeCast(numeric, standard, true, false), fraction), below);
            }
            default:
                return rex.makeCast(numeric, standard, true, false);
        }
    }

    private static RexNode decimal(final RexBuilder rex, final String value) {
        return rex.makeExactLiteral(new java.math.BigDecimal(value));
    }

    /**
     * ceil, floor, round and sign of an integer or a real compute in double precision, round of a numeric to scale 0
     * ({@link PgResultTypes}): the argument is cast so.
     */
    private static final SqlRexConvertlet ROUNDING = (cx, call) -> {
        final RelDataType validated = cx.getValidator().getValidatedNodeTypeIfKnown(call);
        if (validated == null) {
            return StandardConvertletTable.INSTANCE.get(call).convertCall(cx, call);
        }
        final RexNode operand = cx.convertExpression(call.operand(0));
        final RexBuilder rex = cx.getRexBuilder();
        final boolean toDouble = validated.getSqlTypeName() == SqlTypeName.DOUBLE;
        if (toDouble ? operand.getType().getSqlTypeName() != SqlTypeName.DOUBLE
                : PgNumericType.is(validated) && !PgNumericType.is(operand.getType())) {
            final RelDataType argument = toDouble
                    ? rex.getTypeFactory().createSqlType(SqlTypeName.DOUBLE)
                    : PgNumericType.of(rex.getTypeFactory(), false);
            final RexNode cast = rex.makeCast(rex.getTypeFactory().createTypeWithNullability(argument,
                    operand.getType().isNullable()), operand);
            return rex.makeCall(roundsToEven(call, validated) ? PgNumericOperators.RINT : call.getOperator(), cast);
        }
        if (roundsToEven(call, validated)) {
            return rex.makeCall(PgNumericOperators.RINT, operand);
        }
        return StandardConvertletTable.INSTANCE.get(call).convertCall(cx, call);
    };

    /** round of a double precision value: PostgreSQL rounds halves to even (Calcite: away from zero). */
    private static boolean roundsToEven(final SqlCall call, final RelDataType validated) {
        return call.getOperator() == SqlStdOperatorTable.ROUND && validated.getSqlTypeName() == SqlTypeName.DOUBLE;
    }

    /** length of a bytea counts its bytes, as octet_length does (Calcite counted the hex digits of its text). */
    private static final SqlRexConvertlet LENGTH = (cx, call) -> {
        // as written: the validator casts a bytea argument to text for Calcite's character length
        final RexNode operand = cx.convertExpression(written(call.operand(0)));
        if (!SqlTypeUtil.isBinary(operand.getType())) {
            return StandardConvertletTable.INSTANCE.get(call).convertCall(cx, call);
        }
        return cx.getRexBuilder().makeCall(SqlStdOperatorTable.OCTET_LENGTH, operand);
    };

    /** Functions whose numeric forms PostgreSQL computes with numeric's own precision rules. */
    private static final java.util.Set<String> NUMERIC_REFUSED = java.util.Set.of("EXP", "LN", "LOG", "LOG10",
            "CBRT");

    /**
     * exp, ln, log and cbrt of a numeric: PostgreSQL answers a numeric computed to its own precision rules, which
     * MeldDB does not have yet; refused rather than answered as a double with other digits and another type.
     */
    private static final SqlRexConvertlet TRANSCENDENTAL = (cx, call) -> {
        if (SqlTypeUtil.isDecimal(cx.getValidator().deriveType(cx.getValidator().getEmptyScope(), call.operand(0)))) {
            throw new SqlStateException("0A000", call.getOperator().getName().toLowerCase(java.util.Locale.ROOT)
                    + "() of numeric values is not supported yet: cast the argument to double precision");
        }
        return StandardConvertletTable.INSTANCE.get(call).convertCall(cx, call);
    };

    /** A boolean cast to a string is 'true' or 'false', as PostgreSQL's boolout writes it (Calcite: TRUE/FALSE). */
    private static final SqlRexConvertlet BOOLEAN_TEXT = (cx, call) -> {
        // casts the validator added (an INSERT's) have no validated type: they are never of a boolean to text
        final RelDataType source = cx.getValidator().getValidatedNodeTypeIfKnown(call.operand(0));
        final RelDataType target = cx.getValidator().getValidatedNodeTypeIfKnown(call);
        if (source == null || target == null || source.getSqlTypeName() != SqlTypeName.BOOLEAN
                || !SqlTypeUtil.inCharFamily(target)) {
            return null;
        }
        final RexNode operand = cx.convertExpression(call.operand(0));
        final RexBuilder rex = cx.getRexBuilder();
        final RexNode text = rex.makeCall(SqlStdOperatorTable.CASE,
                operand, rex.makeLiteral("true"),
                rex.makeCall(SqlStdOperatorTable.NOT, operand), rex.makeLiteral("false"),
                rex.makeNullLiteral(rex.getTypeFactory().createSqlType(SqlTypeName.VARCHAR)));
        return rex.makeCast(target, text);
    };

    /**
     * CAST as PostgreSQL defines it where Calcite's differs: a boolean to text is 'true'/'false', no casts between
     * boolean and numbers other than integer (42846), and text to uuid through PostgreSQL's uuid input
     * ({@link PgScalars#uuidText}).
     */
    private static final SqlRexConvertlet CAST = (cx, call) -> {
        final RexNode booleanText = BOOLEAN_TEXT.convertCall(cx, call);
        if (booleanText != null) {
            return booleanText;
        }
        final RexNode catalogCast = CatalogCasts.convert(cx, call);
        if (catalogCast != null) {
            return catalogCast;
        }
        if ("jsonb".equals(CatalogCasts.userType(call.operand(1)))) {
            return JsonbFunctions.cast(cx, call);
        }
        final RexNode converted = StandardConvertletTable.INSTANCE.get(call).convertCall(cx, call);
        final RexNode operand = cx.convertExpression(call.operand(0));
        final RelDataType from = operand.getType();
        final RelDataType to = converted.getType();
        if (from.getSqlTypeName() == SqlTypeName.BOOLEAN && noBooleanCast(to)
                || to.getSqlTypeName() == SqlTypeName.BOOLEAN && noBooleanCast(from)) {
            throw new SqlStateException("42846", "cannot cast type " + pgName(from) + " to " + pgName(to));
        }
        if (SqlTypeUtil.isApproximateNumeric(from)) {
            final RexNode floatCast = fromFloat(cx.getRexBuilder(), operand, to);
            if (floatCast != null) {
                return floatCast;
            }
        }
        if (SqlTypeUtil.isBinary(to) && SqlTypeUtil.isCharacter(from)) {
            final RexBuilder rex = cx.getRexBuilder();
            return rex.makeCast(to, rex.makeCall(PgBytea.INPUT, operand), true, false);
        }
        if (to.getSqlTypeName() == SqlTypeName.UUID && SqlTypeUtil.isCharacter(from)) {
            final RexBuilder rex = cx.getRexBuilder();
            if (operand instanceof org.apache.calcite.rex.RexLiteral literal) {
                // a literal is read now, as Calcite reads a valid one: the statement plans with a uuid constant
                final String text = literal.getValueAs(String.class);
                return text == null ? converted : rex.makeCast(to, rex.makeLiteral(PgScalars.uuidText(text)));
            }
            return rex.makeCast(to, rex.makeCall(PgScalars.UUID_IN, operand));
        }
        return converted;
    };

    /**
     * A cast of a floating-point value to an integer or numeric type as PostgreSQL makes it ({@link PgFloatCasts}),
     * or null for other targets.
     */
    private static RexNode fromFloat(final RexBuilder rex, final RexNode operand, final RelDataType to) {
        final org.apache.calcite.sql.SqlOperator op = switch (to.getSqlTypeName()) {
            case SMALLINT, TINYINT -> PgFloatCasts.TO_INT2;
            case INTEGER -> PgFloatCasts.TO_INT4;
            case BIGINT -> PgFloatCasts.TO_INT8;
            case DECIMAL -> operand.getType().getSqlTypeName() == SqlTypeName.REAL ? PgFloatCasts.FLOAT4_TO_NUMERIC
                    : PgFloatCasts.FLOAT8_TO_NUMERIC;
            default -> null;
        };
        if (op == null) {
            return null;
        }
        return rex.makeCast(to, rex.makeCall(op, operand));
    }

    /** A comparison with a regclass or regtype value compares OIDs ({@link CatalogCasts#comparison}). */
    private static final SqlRexConvertlet REGCLASS_COMPARISON = (cx, call) -> {
        final RexNode byOid = CatalogCasts.comparison(cx, call);
        return byOid != null ? byOid : StandardConvertletTable.INSTANCE.get(call).convertCall(cx, call);
    };

    /** sqrt of double precision: 2201F for a negative number, as PostgreSQL's dsqrt. */
    private static final SqlRexConvertlet SQRT = (cx, call) -> {
        final RexNode standard = StandardConvertletTable.INSTANCE.get(call).convertCall(cx, call);
        final RexNode operand = cx.convertExpression(call.operand(0));
        if (standard.getType().getSqlTypeName() != SqlTypeName.DOUBLE
                || !SqlTypeUtil.isApproximateNumeric(operand.getType())) {
            return standard;
        }
        final RexBuilder rex = cx.getRexBuilder();
        return rex.makeCast(standard.getType(), rex.makeCall(PgFloatArithmetic.SQRT, operand), true, false);
    };

    /** {@code %} and {@code mod}: PostgreSQL has them for exact numbers only (42883 for a floating-point one). */
    private static final SqlRexConvertlet MOD = (cx, call) -> {
        final RelDataType a = cx.convertExpression(written(call.operand(0))).getType();
        final RelDataType b = cx.convertExpression(written(call.operand(1))).getType();
        if (SqlTypeUtil.isApproximateNumeric(a) || SqlTypeUtil.isApproximateNumeric(b)) {
            final boolean operator = call.getOperator().getName().equals("%");
            throw new SqlStateException("42883", (operator ? "operator does not exist: " + pgName(a) + " % "
                    + pgName(b) : "function mod(" + pgName(a) + ", " + pgName(b) + ") does not exist")
                    + ": cast the operands to numeric");
        }
        return StandardConvertletTable.INSTANCE.get(call).convertCall(cx, call);
    };

    /**
     * An operand as the statement wrote it: without the cast the validator's type coercion put around it (a
     * coercion cast has no position of its own: none, or its operand's), so that a signature is judged on the
     * types written.
     */
    static SqlNode written(final SqlNode operand) {
        SqlNode node = operand;
        while (node instanceof SqlCall c && c.getKind() == SqlKind.CAST && c.operandCount() == 2
                && (c.getParserPosition().equals(org.apache.calcite.sql.parser.SqlParserPos.ZERO)
                || c.getParserPosition().equals(c.operand(0).getParserPosition()))) {
            node = c.operand(0);
        }
        return node;
    }

    /** The string functions whose PostgreSQL definitions are {@link PgScalars}'. */
    private static final SqlRexConvertlet STRING_FUNCTIONS = (cx, call) -> {
        final SqlRexConvertlet standard = StandardConvertletTable.INSTANCE.get(call);
        final RexBuilder rex = cx.getRexBuilder();
        final java.util.List<RexNode> operands = new java.util.ArrayList<>();
        for (SqlNode operand : call.getOperandList()) {
            operands.add(cx.convertExpression(operand));
        }
        final String name = call.getOperator().getName().toUpperCase(java.util.Locale.ROOT);
        final boolean text = !operands.isEmpty() && SqlTypeUtil.isCharacter(operands.get(0).getType());
        switch (name) {
            case "OVERLAY":
                if (text && operands.size() == 4) {
                    return asValidated(cx, call, rex.makeCall(PgScalars.OVERLAY, operands.get(0),
                            operands.get(1), integer(rex, operands.get(2)), integer(rex, operands.get(3))));
                }
                if (text && operands.size() == 3) {
                    return asValidated(cx, call, rex.makeCall(PgScalars.OVERLAY_ALL, operands.get(0),
                            operands.get(1), integer(rex, operands.get(2))));
                }
                break;
            case "REPEAT":
                if (text && operands.size() == 2) {
                    return asValidated(cx, call, rex.makeCall(PgScalars.REPEAT, operands.get(0),
                            integer(rex, operands.get(1))));
                }
                break;
            case "CHR":
                if (operands.size() == 1 && SqlTypeUtil.isIntType(operands.get(0).getType())) {
                    return asValidated(cx, call, rex.makeCall(PgScalars.CHR, integer(rex, operands.get(0))));
                }
                break;
            case "SUBSTRING":
                if (text && operands.size() == 2) {
                    final RexNode pattern = textOperand(operands.get(1));
                    if (pattern != null) {
                        return asValidated(cx, call, rex.makeCall(PgScalars.SUBSTRING_REGEX, operands.get(0),
                                pattern));
                    }
                }
                break;
            default:
                break;
        }
        return standard.convertCall(cx, call);
    };

    /** {@code call} as {@code node}, of the type the validator gave the call (names and nullability kept). */
    private static RexNode asValidated(final org.apache.calcite.sql2rel.SqlRexContext cx, final SqlCall call,
                                       final RexNode node) {
        final RelDataType type = cx.getValidator().getValidatedNodeType(call);
        return node.getType().equals(type) ? node : cx.getRexBuilder().makeCast(type, node, true, false);
    }

    private MeldConvertlets() {
    }

    /** Boolean casts PostgreSQL does not have: only integer (and text) convert to and from boolean. */
    private static boolean noBooleanCast(final RelDataType t) {
        return switch (t.getSqlTypeName()) {
            case DECIMAL, DOUBLE, FLOAT, REAL, BIGINT, SMALLINT, TINYINT -> true;
            default -> false;
        };
    }

    /** PostgreSQL's name of a type, as its messages write it. */
    static String pgName(final RelDataType t) {
        return switch (t.getSqlTypeName()) {
            case DECIMAL -> "numeric";
            case DOUBLE, FLOAT -> "double precision";
            case REAL -> "real";
            case BIGINT -> "bigint";
            case SMALLINT, TINYINT -> "smallint";
            case INTEGER -> "integer";
            case BOOLEAN -> "boolean";
            case CHAR -> "character";
            case VARCHAR -> "text";
            default -> t.getSqlTypeName().getName().toLowerCase(java.util.Locale.ROOT);
        };
    }

    private static RexNode integer(final RexBuilder rex, final RexNode operand) {
        if (operand.getType().getSqlTypeName() == SqlTypeName.INTEGER) {
            return operand;
        }
        final RelDataType integer = rex.getTypeFactory().createTypeWithNullability(
                rex.getTypeFactory().createSqlType(SqlTypeName.INTEGER), operand.getType().isNullable());
        return rex.makeCast(integer, operand);
    }

    /**
     * The text a substring's second operand was written as: text itself, or text the validator's coercion cast to
     * a number (Calcite reads {@code substring(s from 'l+')} as a numeric start), else null.
     */
    private static RexNode textOperand(final RexNode operand) {
        if (SqlTypeUtil.isCharacter(operand.getType())) {
            return operand;
        }
        RexNode inner = operand;
        while (inner instanceof org.apache.calcite.rex.RexCall c && c.getKind() == SqlKind.CAST) {
            inner = c.getOperands().get(0);
            if (SqlTypeUtil.isCharacter(inner.getType())) {
                return inner;
            }
        }
        return null;
    }

    @Override
    public @Nullable SqlRexConvertlet get(final SqlCall call) {
        final SqlRexConvertlet convertlet = convertlet(call);
        return convertlet == null ? null : (cx, c) -> nameAsValidated(cx, c, convertlet.convertCall(cx, c));
    }

    /**
     * {@code converted} as the validator typed {@code call}: where a name became text ({@link PgNameType#of}), the
     * conversion, typed by Calcite's rules, is cast to text.
     */
    private static RexNode nameAsValidated(final org.apache.calcite.sql2rel.SqlRexContext cx, final SqlCall call,
                                           final RexNode converted) {
        if (!PgNameType.is(converted.getType())) {
            return converted;
        }
        final RelDataType validated = cx.getValidator().getValidatedNodeTypeIfKnown(call);
        return validated == null || PgNameType.is(validated) || validated.getSqlTypeName() != SqlTypeName.VARCHAR
                ? converted : cx.getRexBuilder().makeCast(validated, converted, true, false);
    }

    private @Nullable SqlRexConvertlet convertlet(final SqlCall call) {
        if (call.getOperator() == PgTypeOf.OPERATOR) {
            return PgTypeOf.CONVERTLET;
        }
        if (call.getKind() == SqlKind.DIVIDE && call.operandCount() == 2) {
            return DIVIDE;
        }
        if ((call.getKind() == SqlKind.PLUS || call.getKind() == SqlKind.MINUS || call.getKind() == SqlKind.TIMES)
                && call.operandCount() == 2) {
            return FLOAT_ARITHMETIC;
        }
        if (call.getOperator() == SqlStdOperatorTable.SQRT && call.operandCount() == 1) {
            return SQRT;
        }
        if (call.operandCount() == 2 && switch (call.getKind()) {
            case EQUALS, NOT_EQUALS, LESS_THAN, LESS_THAN_OR_EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL -> true;
            default -> false;
        }) {
            return REGCLASS_COMPARISON;
        }
        if (call.getOperator() == SqlStdOperatorTable.POWER) {
            return POWER;
        }
        if (call.getKind() == SqlKind.EXTRACT && call.operandCount() == 2) {
            return EXTRACT;
        }
        if (PgResultTypes.rounding(call)) {
            return ROUNDING;
        }
        if (call.operandCount() == 1 && switch (call.getOperator().getName().toUpperCase(java.util.Locale.ROOT)) {
            case "LENGTH", "CHAR_LENGTH", "CHARACTER_LENGTH" -> true;
            default -> false;
        }) {
            return LENGTH;
        }
        if (call.operandCount() == 1 && NUMERIC_REFUSED.contains(call.getOperator().getName().toUpperCase(
                java.util.Locale.ROOT))) {
            return TRANSCENDENTAL;
        }
        if (call.getKind() == SqlKind.CAST && call.operandCount() == 2) {
            return CAST;
        }
        if (call.getKind() == SqlKind.MOD && call.operandCount() == 2) {
            return MOD;
        }
        if (!(call.getOperator() instanceof org.apache.calcite.sql.validate.SqlUserDefinedFunction)) {
            switch (call.getOperator().getName().toUpperCase(java.util.Locale.ROOT)) {
                case "OVERLAY", "REPEAT", "CHR", "SUBSTRING":
                    return STRING_FUNCTIONS;
                default:
                    break;
            }
        }
        return StandardConvertletTable.INSTANCE.get(call);
    }

    private static boolean numericOperands(final RelDataType a, final RelDataType b) {
        return SqlTypeUtil.isExactNumeric(a) && SqlTypeUtil.isExactNumeric(b)
                && (SqlTypeUtil.isDecimal(a) || SqlTypeUtil.isDecimal(b));
    }

    private static RexNode toNumeric(final RexBuilder rex, final RelDataType numeric, final RexNode operand) {
        if (PgNumericType.is(operand.getType())) {
            return operand;
        }
        return rex.makeCast(rex.getTypeFactory().createTypeWithNullability(numeric, operand.getType().isNullable()),
                operand);
    }
}
