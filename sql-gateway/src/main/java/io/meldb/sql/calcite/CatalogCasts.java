package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.pg.catalog.PgCatalogFunctions;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlUserDefinedTypeNameSpec;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.InferTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.sql.validate.SqlUserDefinedFunction;
import org.apache.calcite.sql2rel.SqlRexContext;

import java.util.Locale;

/**
 * Casts to and from PostgreSQL's object identifier types {@code regclass} and {@code regtype}, whose values MeldDB
 * keeps as the names they print as: {@code oid::regclass} is the relation's name ({@code 'rr'}; the number for an
 * OID that names nothing), {@code 'name'::regclass} the name of the relation it finds (42P01 when none), and a
 * regclass cast on to {@code oid} or an integer the relation's OID ({@code 'rr'::regclass::oid}), all read from the
 * catalog as the statement sees it ({@link PgCatalogFunctions}); {@code oid::regtype} is the type's name as
 * {@code format_type} spells it, {@code 'int4'::regtype} the name of the type a name finds (42704 when none). An oid
 * compared with a regclass or regtype value is compared with the OID it names ({@link #comparison}). A
 * {@code regproc} is a function's name ({@code 'pg_catalog.array_in'::regproc} is {@code array_in}, as
 * pg_type's typinput holds it).
 */
final class CatalogCasts {
    /** The object identifier types whose values are names: casts both ways, comparisons with an oid. */
    private static final java.util.Set<String> OID_TYPES = java.util.Set.of("regclass", "regtype", "regnamespace");

    private CatalogCasts() {
    }

    /** The conversion of {@code cast} when it is to or from regclass/regtype, else null. */
    static RexNode convert(final SqlRexContext cx, final SqlCall cast) {
        final String to = userType(cast.operand(1));
        final RexBuilder rex = cx.getRexBuilder();
        if ("regproc".equals(to)) {
            final RexNode operand = cx.convertExpression(cast.operand(0));
            if (!SqlTypeUtil.isCharacter(operand.getType())) {
                throw new SqlStateException("0A000", "cannot cast " + operand.getType().getSqlTypeName().getName()
                        .toLowerCase(Locale.ROOT) + " to regproc in MeldDB yet (only a function's name)");
            }
            return rex.makeCast(cx.getValidator().getValidatedNodeType(cast), call(rex, "REGPROC_OF_NAME",
                    SqlTypeName.VARCHAR, operand), true, false);
        }
        if (to != null && OID_TYPES.contains(to)) {
            final RexNode operand = cx.convertExpression(cast.operand(0));
            final RelDataType from = operand.getType();
            final RelDataType validated = cx.getValidator().getValidatedNodeType(cast);
            final String prefix = to.toUpperCase(Locale.ROOT);
            if (SqlTypeUtil.isExactNumeric(from)) {
                return rex.makeCast(validated, call(rex, prefix + "_OF_OID", SqlTypeName.VARCHAR, operand), true,
                        false);
            }
            if (SqlTypeUtil.isCharacter(from)) {
                return rex.makeCast(validated, call(rex, prefix + "_OF_NAME", SqlTypeName.VARCHAR, operand), true,
                        false);
            }
            throw new SqlStateException("0A000", "cannot cast " + from.getSqlTypeName().getName().toLowerCase(
                    Locale.ROOT) + " to " + to + " in MeldDB yet");
        }
        if (!(cast.operand(0) instanceof SqlCall inner && inner.getKind() == SqlKind.CAST
                && inner.operandCount() == 2 && userType(inner.operand(1)) != null)) {
            return null; // (casts the planner makes itself, in window aggregates, were never validated)
        }
        final RelDataType target = cx.getValidator().getValidatedNodeTypeIfKnown(cast);
        final RexNode oid = target != null && SqlTypeUtil.isExactNumeric(target) ? oid(cx, inner) : null;
        // regclass or regtype to oid: the OID of the object the value names
        return oid == null ? null : rex.makeCast(target, oid, true, false);
    }

    /**
     * The OID {@code node} stands for when it is a cast to regclass or regtype (whose values are names), else null:
     * {@code 'rr'::regclass} compared with or cast to an oid is the relation's OID.
     */
    static RexNode oid(final SqlRexContext cx, final SqlNode node) {
        if (node instanceof SqlCall c && c.getKind() == SqlKind.CAST && c.operandCount() == 2) {
            final String type = userType(c.operand(1));
            if (type != null && OID_TYPES.contains(type)) {
                return call(cx.getRexBuilder(), "OID_OF_" + type.toUpperCase(Locale.ROOT), SqlTypeName.INTEGER,
                        cx.convertExpression(c));
            }
        }
        return null;
    }

    /**
     * A comparison of an oid with a regclass or regtype value ({@code c.oid = 't'::regclass}, as tools write it):
     * compared as OIDs, not as text; null when neither side is such a value.
     */
    static RexNode comparison(final SqlRexContext cx, final SqlCall call) {
        final SqlNode a = MeldConvertlets.written(call.operand(0));
        final SqlNode b = MeldConvertlets.written(call.operand(1));
        final RexNode oidA = oid(cx, a);
        final RexNode oidB = oid(cx, b);
        if (oidA == null && oidB == null) {
            return null;
        }
        final RexNode left = oidA != null ? oidA : cx.convertExpression(a);
        final RexNode right = oidB != null ? oidB : cx.convertExpression(b);
        if (!SqlTypeUtil.isNumeric(left.getType()) || !SqlTypeUtil.isNumeric(right.getType())) {
            return null;
        }
        return cx.getRexBuilder().makeCall(call.getOperator(), left, right);
    }

    /** The lower-case name of a user-defined type a cast names, or null. */
    static String userType(final SqlNode node) {
        return node instanceof SqlDataTypeSpec spec && spec.getTypeNameSpec() instanceof SqlUserDefinedTypeNameSpec u
                ? u.getTypeName().getSimple().toLowerCase(Locale.ROOT) : null;
    }

    private static RexNode call(final RexBuilder rex, final String name, final SqlTypeName type,
                                final RexNode operand) {
        final org.apache.calcite.schema.Function function =
                PgCatalogFunctions.functions().get(name).iterator().next();
        final SqlUserDefinedFunction op = new SqlUserDefinedFunction(new SqlIdentifier(name.toLowerCase(Locale.ROOT),
                SqlParserPos.ZERO), SqlKind.OTHER_FUNCTION, ReturnTypes.explicit(rex.getTypeFactory()
                .createTypeWithNullability(rex.getTypeFactory().createSqlType(type), true)), InferTypes.FIRST_KNOWN,
                null, function);
        return rex.makeCall(op, operand);
    }
}
