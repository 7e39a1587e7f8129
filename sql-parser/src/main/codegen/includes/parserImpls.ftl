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

/**
 * PostgreSQL's JSON operators {@code j -> k} and {@code j ->> k} ({@link JsonAccessOperator}: their precedence and
 * the functions they call). {@code ->} is Calcite's LAMBDA token; a lambda never follows an operand, so here it is
 * the operator.
 */
void JsonAccess(List<Object> list, ExprContext exprContext, Span s) :
{
    final SqlOperator op;
}
{
    (
        <LAMBDA> { op = JsonAccessOperator.GET; }
    |
        <JSON_GET_TEXT> { op = JsonAccessOperator.GET_TEXT; }
    )
    {
        checkNonQueryExpression(exprContext);
        list.add(new SqlParserUtil.ToTreeListItem(op, getPos()));
    }
    AddExpression2b(list, ExprContext.ACCEPT_SUB_QUERY)
}

/**
 * PostgreSQL's jsonb operators {@code ?}, {@code ?|}, {@code ?&}, {@code @>} and its converse ("is contained by") ({@link FunctionOperator}:
 * their precedence and functions). {@code ?} is Calcite's HOOK, a dynamic parameter where an operand may stand;
 * after an operand no parameter may follow, so there it is the operator.
 */
void JsonbOperator(List<Object> list, ExprContext exprContext, Span s) :
{
    final SqlOperator op;
}
{
    (
        <HOOK> { op = FunctionOperator.JSONB_EXISTS; }
    |
        <JSONB_EXISTS_ANY> { op = FunctionOperator.JSONB_EXISTS_ANY; }
    |
        <JSONB_EXISTS_ALL> { op = FunctionOperator.JSONB_EXISTS_ALL; }
    |
        <JSONB_CONTAINS> { op = FunctionOperator.JSONB_CONTAINS; }
    |
        <JSONB_CONTAINED> { op = FunctionOperator.JSONB_CONTAINED; }
    )
    {
        checkNonQueryExpression(exprContext);
        list.add(new SqlParserUtil.ToTreeListItem(op, getPos()));
    }
    AddExpression2b(list, ExprContext.ACCEPT_SUB_QUERY)
}

/**
 * PostgreSQL's {@code a OPERATOR([schema.]op) b} ({@link QualifiedOperator}): the comparison, regular-expression
 * and arithmetic operators MeldDB has, named with or without their schema (psql writes {@code OPERATOR(pg_catalog.~)}
 * in its name patterns).
 */
void OperatorConstruct(List<Object> list, ExprContext exprContext, Span s) :
{
    SqlOperator op;
}
{
    <OPERATOR> <LPAREN>
    [ LOOKAHEAD(2) SimpleIdentifier() <DOT> ]
    (
        <TILDE> { op = SqlStdOperatorTable.POSIX_REGEX_CASE_SENSITIVE; }
        [ <STAR> { op = SqlStdOperatorTable.POSIX_REGEX_CASE_INSENSITIVE; } ]
    |
        <NEGATE> <TILDE> { op = SqlStdOperatorTable.NEGATED_POSIX_REGEX_CASE_SENSITIVE; }
        [ <STAR> { op = SqlStdOperatorTable.NEGATED_POSIX_REGEX_CASE_INSENSITIVE; } ]
    |
        <EQ> { op = SqlStdOperatorTable.EQUALS; }
    |
        <NE> { op = SqlStdOperatorTable.NOT_EQUALS; }
    |
        <NE2> { op = SqlStdOperatorTable.NOT_EQUALS; }
    |
        <LT> { op = SqlStdOperatorTable.LESS_THAN; }
    |
        <LE> { op = SqlStdOperatorTable.LESS_THAN_OR_EQUAL; }
    |
        <GT> { op = SqlStdOperatorTable.GREATER_THAN; }
    |
        <GE> { op = SqlStdOperatorTable.GREATER_THAN_OR_EQUAL; }
    |
        <PLUS> { op = SqlStdOperatorTable.PLUS; }
    |
        <MINUS> { op = SqlStdOperatorTable.MINUS; }
    |
        <STAR> { op = SqlStdOperatorTable.MULTIPLY; }
    |
        <SLASH> { op = SqlStdOperatorTable.DIVIDE; }
    |
        <CONCAT> { op = SqlStdOperatorTable.CONCAT; }
    )
    <RPAREN>
    {
        checkNonQueryExpression(exprContext);
        list.add(new SqlParserUtil.ToTreeListItem(new QualifiedOperator(op), getPos()));
    }
    AddExpression2b(list, ExprContext.ACCEPT_SUB_QUERY)
}

/**
 * {@code expr COLLATE collation} for the collations MeldDB compares text by: the database's default
 * ({@code default}, {@code pg_catalog.default}, as psql writes it), {@code "C"} and {@code "POSIX"} (code point
 * order), which leave the expression as it is. Any other collation is refused: MeldDB has no other.
 */
void CollateDefault(List<Object> list, ExprContext exprContext, Span s) :
{
    String name;
}
{
    <COLLATE>
    [ LOOKAHEAD(2) SimpleIdentifier() <DOT> ]
    (
        <DEFAULT_> { name = "default"; }
    |
        name = Identifier()
    )
    {
        if (!name.equals("default") && !name.equals("C") && !name.equals("POSIX")) {
            throw new ParseException("collation \"" + name + "\" is not supported: MeldDB compares text by the "
                + "database's default collation (\"C\")");
        }
    }
}

/**
 * One item of a select list, with its alias: this replaces Calcite's AddSelectItem (generate.xml renames that one
 * out of the way). After AS the alias is a column label, which may be any keyword, as PostgreSQL's ColLabel:
 * {@code SELECT x AS default}, {@code AS from}, {@code AS order} (SQLAlchemy's reflection sends {@code ... AS
 * DEFAULT}). Without AS it is a name, as in Calcite's grammar. Calcite's {@code AS MEASURE}, which PostgreSQL has
 * not, is left out: {@code AS measure} is a label.
 */
void AddSelectItem(List<SqlNode> list) :
{
    final SqlNode e;
    final SqlIdentifier id;
}
{
    e = SelectExpression()
    (
        <AS> id = ColumnLabel() {
            list.add(SqlStdOperatorTable.AS.createCall(span().end(e), e, id));
        }
    |
        (
            id = SimpleIdentifier()
        |
            // Mute the warning about ambiguity between alias and continued
            // string literal (as Calcite's AddSelectItem does).
            LOOKAHEAD(1)
            id = SimpleIdentifierFromStringLiteral()
        ) {
            list.add(SqlStdOperatorTable.AS.createCall(span().end(e), e, id));
        }
    |
        { list.add(e); }
    )
}

/**
 * PostgreSQL's ColLabel: a name, a string where the conformance allows one, or any keyword (folded as an unquoted
 * name: {@code AS DEFAULT} labels the column {@code default}).
 */
SqlIdentifier ColumnLabel() :
{
    final SqlIdentifier id;
}
{
    (
        id = SimpleIdentifier()
    |
        LOOKAHEAD(1)
        id = SimpleIdentifierFromStringLiteral()
    |
        ReservedKeyword() {
            id = new SqlIdentifier(unquotedIdentifier(), getPos());
        }
    )
    {
        return id;
    }
}

/** One of the keywords that are no name (config.fmpp's columnLabelKeywords). */
void ReservedKeyword() :
{
}
{
    (
<#list parser.columnLabelKeywords as keyword>
<#if keyword?index == 0>
        <${keyword}>
<#else>
    |   <${keyword}>
</#if>
</#list>
    )
}
