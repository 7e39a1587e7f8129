package io.meldb.sql.parser;

import org.apache.calcite.sql.SqlBinaryOperator;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * PostgreSQL's {@code a OPERATOR(schema.op) b} (psql writes {@code OPERATOR(pg_catalog.~)}): the operator {@code op}
 * at the precedence PostgreSQL gives the OPERATOR() construct, that of "any other operator" (tighter than the
 * comparisons and LIKE, looser than {@code +}), whatever {@code op}'s own. The call it builds is {@code op}'s.
 */
public final class QualifiedOperator extends SqlBinaryOperator {
    private final SqlOperator operator;

    public QualifiedOperator(final SqlOperator operator) {
        super("OPERATOR(" + operator.getName() + ")", SqlKind.OTHER, FunctionOperator.PRECEDENCE, true, null, null,
                null);
        this.operator = operator;
    }

    @Override
    public SqlCall createCall(final SqlLiteral functionQualifier, final SqlParserPos pos,
                              final SqlNode... operands) {
        return operator.createCall(functionQualifier, pos, operands);
    }
}
