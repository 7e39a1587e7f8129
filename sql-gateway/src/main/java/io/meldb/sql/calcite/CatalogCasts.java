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
 * {@code format_type} spells it. A text cast to regtype is refused (0A000).
 */
final class CatalogCasts {
    private CatalogCasts() {
    }

    /** The conversion of {@code cast} when it is to or from regclass/regtype, else null. */
    static RexNode convert(final SqlRexContext cx, final SqlCall cast) {
        final String to = userType(cast.operand(1));
        final RexBuilder rex = cx.getRexBuilder();
        if (to != null && (to.equals("regclass") || to.equals("regtype"))) {
            final RexNode operand = cx.convertExpression(cast.operand(0));
            final RelDataType from = operand.getType();
            final RelDataType validated = cx.getValidator().getValidatedNodeType(cast);
            if (SqlTypeUtil.isExactNumeric(from)) {
                return rex.makeCast(validated, call(rex, to.equals("regclass") ? "REGCLASS_OF_OID"
                        : "REGTYPE_OF_OID", SqlTypeName.VARCHAR, operand), true, false);
            }
            if (SqlTypeUtil.isCharacter(from) && to.equals("regclass")) {
                return rex.makeCast(validated, call(rex, "REGCLASS_OF_NAME", SqlTypeName.VARCHAR, operand), true,
                        false);
            }
            throw new SqlStateException("0A000", "cannot cast " + from.getSqlTypeName().getName().toLowerCase(
                    Locale.ROOT) + " to " + to + " in MeldDB yet");
        }
        final SqlNode inner = cast.operand(0);
        if (inner instanceof SqlCall innerCast && innerCast.getKind() == SqlKind.CAST
                && innerCast.operandCount() == 2 && "regclass".equals(userType(innerCast.operand(1)))
                && cast.operand(1) instanceof SqlDataTypeSpec spec) {
            final RelDataType target = cx.getValidator().getValidatedNodeType(cast);
            if (SqlTypeUtil.isExactNumeric(target)) {
                // regclass to oid: the OID of the relation the regclass value names
                return rex.makeCast(target, call(rex, "OID_OF_REGCLASS", SqlTypeName.INTEGER,
                        cx.convertExpression(innerCast)), true, false);
            }
        }
        return null;
    }

    /** The lower-case name of a user-defined type a cast names, or null. */
    private static String userType(final SqlNode node) {
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
