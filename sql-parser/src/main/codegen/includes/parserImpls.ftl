<#--
  MeldDB's productions, included into Calcite's Parser.jj by config.fmpp's implementationFiles. Each one is a
  PostgreSQL form MeldDB reads; config.fmpp says where the template calls it.
-->

/* The tokens of PostgreSQL's regular-expression operators (config.fmpp's includePosixOperators): ~ ~* !~ !~* */
<DEFAULT, DQID, BTID> TOKEN :
{
    < NEGATE: "!" >
|   < TILDE: "~" >
}

/**
 * PostgreSQL's cast operator, {@code expr::type}: an extra binary expression of Calcite's Expression2 loop, where
 * {@code list} holds the operands and operators read so far. "::" binds tighter than any operator but subscripts
 * and field access, so the cast takes the last operand with the subscripts that follow it: {@code a + b::int} is
 * {@code a + (b::int)}, {@code -x::int} is {@code -(x::int)}, {@code a[1]::int} is {@code (a[1])::int}. After a
 * postfix operator ({@code x IS NULL::text}) it takes everything read so far.
 */
void InfixCast(List<Object> list, ExprContext exprContext, Span s) :
{
    final SqlDataTypeSpec type;
}
{
    <INFIX_CAST> {
        checkNonQueryExpression(exprContext);
    }
    type = DataType() {
        int from = list.size() - 1;
        if (from >= 0 && list.get(from) instanceof SqlNode) {
            while (from >= 2 && list.get(from - 1) instanceof SqlParserUtil.ToTreeListItem
                    && list.get(from - 2) instanceof SqlNode) {
                final SqlOperator op = ((SqlParserUtil.ToTreeListItem) list.get(from - 1)).getOperator();
                if (op.getSyntax() == SqlSyntax.PREFIX || op.getSyntax() == SqlSyntax.POSTFIX
                        || op.getLeftPrec() <= SqlLibraryOperators.INFIX_CAST.getLeftPrec()) {
                    break;
                }
                from -= 2;
            }
        } else {
            from = 0;
        }
        final List<Object> operand = list.subList(from, list.size());
        final SqlNode cast = SqlLibraryOperators.INFIX_CAST.createCall(s.end(this),
            SqlParserUtil.toTree(new ArrayList<Object>(operand)), type);
        operand.clear();
        list.add(cast);
    }
}
