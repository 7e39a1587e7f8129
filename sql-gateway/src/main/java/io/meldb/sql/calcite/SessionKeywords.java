package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlCallBinding;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorBinding;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.validate.SqlMonotonicity;
import org.apache.calcite.sql.validate.SqlUserDefinedFunction;

import java.util.List;
import java.util.Locale;

/**
 * The SQL keywords PostgreSQL evaluates as functions of the session: {@code current_user}, {@code session_user},
 * {@code current_role}, {@code user}, {@code current_catalog} and {@code current_schema} (also
 * {@code current_schema()}, with parentheses, as PostgreSQL allows it for that one). The parser reads each as a
 * name; the validator makes a name that matches a function of SQL's niladic syntax a call of it, and finds these
 * operators before Calcite's own of the same names ({@link PgOperatorTable}), whose user is a fixed "sa" and whose
 * current_schema cannot run. Their values come from the session ({@link SessionFunctions}), as PostgreSQL's type
 * name ({@link PgNameType}); a result column of one is named after the keyword, as in PostgreSQL.
 */
final class SessionKeywords {
    private SessionKeywords() {
    }

    /** The operators, one per keyword. */
    static List<SqlOperator> operators() {
        return List.of(keyword("CURRENT_USER", "currentUser", false, false),
                keyword("SESSION_USER", "currentUser", false, false),
                keyword("CURRENT_ROLE", "currentUser", false, false), keyword("USER", "currentUser", false, false),
                keyword("CURRENT_CATALOG", "currentDatabase", false, false),
                keyword("CURRENT_SCHEMA", "currentSchema", true, true));
    }

    private static SqlOperator keyword(final String name, final String method, final boolean nullable,
                                       final boolean parentheses) {
        return new Keyword(name, ContextFunction.returning(t -> PgNameType.of(t, nullable), SessionFunctions.class,
                method), parentheses);
    }

    /** A niladic function of the session, called without parentheses (current_schema also with them). */
    private static final class Keyword extends SqlUserDefinedFunction {
        Keyword(final String name, final ContextFunction function, final boolean parentheses) {
            super(new SqlIdentifier(name, SqlParserPos.ZERO), SqlKind.OTHER_FUNCTION, binding -> {
                if (!parentheses && binding instanceof SqlCallBinding call && !call.getCall().isExpanded()) {
                    // the validator makes the keyword a call ("expanded"); current_user() is written so
                    throw new SqlStateException("42601", "syntax error at or near \"(\": "
                            + name.toLowerCase(Locale.ROOT) + " is written without parentheses");
                }
                return function.getReturnType(binding.getTypeFactory());
            }, null, OperandTypes.operandMetadata(List.<SqlTypeFamily>of(), (RelDataTypeFactory t) -> List.of(),
                    i -> "arg" + i, i -> false), function, SqlSyntax.FUNCTION_ID);
        }

        @Override
        public SqlMonotonicity getMonotonicity(final SqlOperatorBinding call) {
            return SqlMonotonicity.CONSTANT;
        }

        /** Its value is the session's: a plan that calls it is never cached as holding a constant. */
        @Override
        public boolean isDynamicFunction() {
            return true;
        }
    }
}
