package io.meldb.sql.calcite;

import io.meldb.sql.parser.MeldSqlParserImpl;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.avatica.util.Quoting;
import org.apache.calcite.config.CalciteConnectionProperty;
import org.apache.calcite.sql.parser.SqlParser;

import java.util.Properties;

/**
 * PostgreSQL's identifier rule, in one place for every parser of the gateway: unquoted identifiers fold to lower
 * case, quoted ones keep their case, and names then match exactly. Calcite's connections ({@link #apply}), the
 * fast path's and the front ends' own parses ({@link #PARSER}) and MeldDB's DDL lexer all fold the same way, so a
 * name means the same table or column whichever of them reads it. The parser is MeldDB's own, {@link
 * MeldSqlParserImpl} (module sql-parser, issue 35).
 */
public final class MeldLex {
    /** MeldDB's parser configured as every connection's is. */
    public static final SqlParser.Config PARSER = SqlParser.config()
            .withQuoting(Quoting.DOUBLE_QUOTE)
            .withUnquotedCasing(Casing.TO_LOWER)
            .withQuotedCasing(Casing.UNCHANGED)
            .withCaseSensitive(true)
            .withConformance(org.apache.calcite.sql.validate.SqlConformanceEnum.LENIENT)
            .withParserFactory(MeldSqlParserImpl.FACTORY);

    private MeldLex() {
    }

    /** Sets the identifier rule on the properties of a Calcite connection. */
    public static void apply(final Properties calcite) {
        calcite.setProperty(CalciteConnectionProperty.QUOTING.camelName(), Quoting.DOUBLE_QUOTE.name());
        calcite.setProperty(CalciteConnectionProperty.UNQUOTED_CASING.camelName(), Casing.TO_LOWER.name());
        calcite.setProperty(CalciteConnectionProperty.QUOTED_CASING.camelName(), Casing.UNCHANGED.name());
        calcite.setProperty(CalciteConnectionProperty.CASE_SENSITIVE.camelName(), "true");
        calcite.setProperty(CalciteConnectionProperty.CONFORMANCE.camelName(), "LENIENT");
        calcite.setProperty(CalciteConnectionProperty.PARSER_FACTORY.camelName(),
                MeldSqlParserImpl.class.getName() + "#FACTORY");
    }

    /** Calcite's parser over {@code sql}, configured as {@link #PARSER}. */
    public static SqlParser parser(final String sql) {
        return SqlParser.create(sql, PARSER);
    }
}
