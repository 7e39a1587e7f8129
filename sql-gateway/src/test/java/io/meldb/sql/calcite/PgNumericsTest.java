package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** PostgreSQL's numeric division scale ({@code select_div_scale}), against values PostgreSQL 15 printed. */
class PgNumericsTest {
    private static String div(final String a, final String b) {
        return PgNumerics.divide(new BigDecimal(a), new BigDecimal(b)).toPlainString();
    }

    @Test
    void quotientsHaveAtLeastSixteenSignificantDigitsAndTheOperandsScales() {
        assertEquals("0.33333333333333333333", div("1", "3.0"));
        assertEquals("2.5000000000000000", div("10.0", "4"));
        assertEquals("0.66666666666666666667", div("2", "3"));
        assertEquals("3333.3333333333333333", div("10000", "3"));
        assertEquals("0.000033333333333333333333", div("1", "30000"));
        assertEquals("-0.33333333333333333333", div("-1", "3"));
        assertEquals("0.00000000000000000000", div("0", "3"));
        assertEquals("0.12345678901234567890", div("0.12345678901234567890", "1"));
    }

    @Test
    void divisionByZeroIs22012() {
        assertEquals("22012", assertThrows(SqlStateException.class, () -> div("1", "0.0")).sqlState());
    }
}
