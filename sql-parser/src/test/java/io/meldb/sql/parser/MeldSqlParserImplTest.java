package io.meldb.sql.parser;

import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.avatica.util.Quoting;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.dialect.CalciteSqlDialect;
import org.apache.calcite.sql.parser.SqlAbstractParserImpl;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.validate.SqlConformanceEnum;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The PostgreSQL forms MeldSqlParserImpl reads beyond Calcite's default grammar, each as the tree it parses to
 * (unparsed in Calcite's dialect), with the gateway's identifier rule (MeldLex: unquoted names fold to lower case).
 */
class MeldSqlParserImplTest {

    /** The configuration the gateway's MeldLex gives Calcite (that class is in sql-gateway, above this module). */
    static final SqlParser.Config CONFIG = SqlParser.config()
            .withQuoting(Quoting.DOUBLE_QUOTE)
            .withUnquotedCasing(Casing.TO_LOWER)
            .withQuotedCasing(Casing.UNCHANGED)
            .withCaseSensitive(true)
            .withConformance(SqlConformanceEnum.LENIENT)
            .withParserFactory(MeldSqlParserImpl.FACTORY);

    static SqlNode parse(final String sql) throws SqlParseException {
        return SqlParser.create(sql, CONFIG).parseStmt();
    }

    static String unparse(final String sql) throws SqlParseException {
        return parse(sql).toSqlString(CalciteSqlDialect.DEFAULT).getSql().replace('\n', ' ');
    }

    static String expression(final String sql) throws SqlParseException {
        return SqlParser.create(sql, CONFIG).parseExpression().toSqlString(CalciteSqlDialect.DEFAULT).getSql();
    }

    /** The tree of an expression, each call as its operator's name and its operands: {@code +(a, ::(b, INTEGER))}. */
    static String tree(final String sql) throws SqlParseException {
        return tree(SqlParser.create(sql, CONFIG).parseExpression());
    }

    static String tree(final SqlNode node) {
        if (node instanceof SqlCall call) {
            final StringBuilder b = new StringBuilder(call.getOperator().getName()).append('(');
            for (int i = 0; i < call.operandCount(); i++) {
                b.append(i == 0 ? "" : ", ").append(tree(call.operand(i)));
            }
            return b.append(')').toString();
        }
        return node.toString();
    }

    @Test
    void castOperatorBindsTighterThanOperatorsButSubscripts() throws SqlParseException {
        assertEquals("+(a, ::(b, INTEGER))", tree("a + b::int"));
        assertEquals("::(+(a, b), INTEGER)", tree("(a + b)::int"));
        assertEquals("-(::(x, INTEGER))", tree("-x::int"));
        assertEquals("::(::('1', INTEGER), BIGINT)", tree("'1'::int::bigint"));
        assertEquals("<(*(a, ::(b, DECIMAL(10, 2))), 5)", tree("a * b::numeric(10,2) < 5"));
        assertEquals("::(ITEM(a, 1), INTEGER)", tree("a[1]::int"));
        assertEquals("=(x, ::('a', VARCHAR))", tree("x = 'a'::varchar"));
        assertEquals("||(::(a, `text`), 'b')", tree("a::text || 'b'"));
        assertEquals("::(IS NULL(x), VARCHAR)", tree("x IS NULL::varchar"));
    }

    @Test
    void jsonOperatorsCallTheirFunctionsWithPostgresPrecedence() throws SqlParseException {
        assertEquals("json_field(d, 'k')", tree("d -> 'k'"));
        assertEquals("json_field_text(d, 'k')", tree("d ->> 'k'"));
        assertEquals("json_element(d, 0)", tree("d->0"));
        assertEquals("json_element_text(d, -1)", tree("d ->> -1"));
        assertEquals("json_field_text(json_field(t.d, 'a'), 'b')", tree("t.d -> 'a' ->> 'b'"));
        assertEquals("=(json_field(t.d, 'k'), '\"x\"')", tree("(t.d -> 'k') = '\"x\"'"));
        assertEquals("=(json_field(d, 'k'), 'x')", tree("d -> 'k' = 'x'"), "looser than =, as in PostgreSQL");
        assertEquals("json_get_text(d, +(1, 2))", tree("d ->> 1 + 2"), "looser than +");
        assertEquals("json_get(d, id)", tree("d -> id"), "an expression picks key or index by its type");
        assertEquals("jsonb_exists(t.d, 'k')", tree("t.d ? 'k'"));
        assertEquals("jsonb_exists(d, ?)", tree("d ? ?"), "the operator, then a parameter");
        assertEquals("AND(jsonb_exists_any(d, ARRAY('a', 'b')), jsonb_exists_all(d, ARRAY('c')))",
                tree("d ?| ARRAY['a', 'b'] AND d ?& ARRAY['c']"));
        assertEquals("=(jsonb_contains(d, '{}'), jsonb_contained(d, e))", tree("d @> '{}' = d <@ e"));
        assertEquals("json_field(d, CAST(?, VARCHAR))", tree("d -> ?"), "a parameter key is text");
    }

    @Test
    void operatorConstructAndDefaultCollationAsPsqlWritesThem() throws SqlParseException {
        assertEquals("AND(POSIX REGEX CASE SENSITIVE(c.relname, '^(t)$'), f(c.oid))", tree("c.relname OPERATOR(pg_catalog.~) '^(t)$' COLLATE "
                + "pg_catalog.default AND f(c.oid)"));
        assertEquals("=(a, +(b, 1))", tree("a OPERATOR(=) b + 1"));
        assertEquals("POSIX REGEX CASE INSENSITIVE(n, 'x')", tree("n OPERATOR(pg_catalog.~*) 'x' COLLATE \"C\""));
        assertThrows(SqlParseException.class, () -> tree("n COLLATE \"de_DE\""));
    }

    @Test
    void postgresqlRegularExpressionOperators() throws SqlParseException {
        assertEquals("\"s\" ~ 'a.*'", expression("s ~ 'a.*'"));
        assertEquals("\"s\" ~* 'a.*'", expression("s ~* 'a.*'"));
        assertEquals("\"s\" !~ 'a.*'", expression("s !~ 'a.*'"));
        assertEquals("\"s\" !~* 'a.*'", expression("s !~* 'a.*'"));
        assertEquals("\"a\" <> \"b\"", expression("a != b"));
    }

    @Test
    void intervalTypeWithoutUnitAndArrayFromText() throws SqlParseException {
        assertEquals("CAST('1 day' AS INTERVAL SECOND)", expression("CAST('1 day' AS INTERVAL)"));
        assertEquals("ARRAY[1, 2]", expression("ARRAY '{1,2}'"));
    }

    @Test
    void wordsCalciteReservesAreNames() throws SqlParseException {
        assertEquals("SELECT \"value\", \"year\", \"month\", \"at\", \"position\", \"result\", \"count\", "
                        + "\"type\", \"status\" FROM \"t\" WHERE \"value\" > 1",
                unparse("SELECT value, year, month, at, position, result, count, type, status FROM t WHERE value > 1"));
        assertEquals("SELECT \"a$b\", \"_x\", \"été\" FROM \"t\"", unparse("SELECT a$b, _x, été FROM t"));
    }

    /** The aliases of a SELECT's items, "-" for an item without one. */
    static List<String> aliases(final String sql) throws SqlParseException {
        final List<String> aliases = new ArrayList<>();
        for (SqlNode item : ((SqlSelect) SqlParser.create(sql, CONFIG).parseQuery()).getSelectList()) {
            aliases.add(item.getKind() == SqlKind.AS ? ((SqlIdentifier) ((SqlCall) item).operand(1)).getSimple() : "-");
        }
        return aliases;
    }

    @Test
    void anyKeywordIsAColumnLabelAfterAs() throws SqlParseException {
        assertEquals(List.of("default", "from", "From", "user", "order", "select", "as", "null", "measure", "x"),
                aliases("SELECT 1 AS default, 2 AS from, 3 AS \"From\", 4 AS user, 5 AS order, 6 AS SELECT, "
                        + "7 AS as, 8 AS null, 9 AS measure, 10 AS x FROM t AS u WHERE true"));
        // SQLAlchemy's reflection of a column's default (PGDialect.get_columns)
        assertEquals(List.of("-", "default"), aliases("SELECT a.attname, (SELECT pg_catalog.pg_get_expr(d.adbin, "
                + "d.adrelid) FROM pg_catalog.pg_attrdef d WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND "
                + "a.atthasdef) AS DEFAULT FROM pg_catalog.pg_attribute a"));
        // without AS an alias is a name, as before (PostgreSQL also takes most keywords there: not yet)
        assertEquals(List.of("value", "-"), aliases("SELECT 1 value, 2 FROM t"));
        assertThrows(SqlParseException.class, () -> parse("SELECT 1 default"));
    }

    /** Every keyword of the parser, reserved or not, is a label: config.fmpp's columnLabelKeywords is complete. */
    @Test
    void everyKeywordIsAColumnLabel() throws SqlParseException {
        final SqlAbstractParserImpl.Metadata metadata = SqlParser.create("", CONFIG).getMetadata();
        int keywords = 0;
        final List<String> notLabels = new ArrayList<>();
        for (String token : metadata.getTokens()) {
            if (metadata.isKeyword(token) && token.matches("[A-Z][A-Z0-9_]*")) {
                keywords++;
                try {
                    if (!aliases("SELECT 1 AS " + token + " FROM t").equals(List.of(token.toLowerCase(Locale.ROOT)))) {
                        notLabels.add(token);
                    }
                } catch (SqlParseException e) {
                    notLabels.add(token);
                }
            }
        }
        assertEquals(List.of(), notLabels);
        assertTrue(keywords > 300, "keywords: " + keywords);
    }

    @Test
    void reservedWordsStayReserved() {
        assertThrows(SqlParseException.class, () -> parse("SELECT from FROM t"));
        assertThrows(SqlParseException.class, () -> parse("SELECT 1 AS - FROM t"));
        assertThrows(SqlParseException.class, () -> parse("SELECT 1 FROM t inner JOIN u ON true AS x"));
    }
}
