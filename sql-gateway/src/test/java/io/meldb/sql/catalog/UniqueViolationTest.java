package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The 23505 of a unique index names the constraint and shows the key as PostgreSQL's text output writes it. */
class UniqueViolationTest {
    @Test
    void shouldNameTheConstraintAndWriteTheKeyAsPostgresDoes() {
        final TableDef t = new TableDef("meldb", "public", "ev", 5, List.of(
                new ColumnDef("d", ColumnType.of(SqlType.DATE), true),
                new ColumnDef("at", ColumnType.of(SqlType.TIMESTAMP), true),
                new ColumnDef("amount", new ColumnType(SqlType.DECIMAL, 10, 2), true),
                new ColumnDef("ok", ColumnType.of(SqlType.BOOLEAN), true)), new int[0], List.of());
        final IndexDef index = new IndexDef("ev_key", 6, new int[] {0, 1, 2, 3}, true, true);
        final SqlStateException e = UniqueViolation.of(t, index, new Object[] {
                (int) java.time.LocalDate.of(2024, 2, 29).toEpochDay(), 1_700_000_000_123L, new BigDecimal("1E+1")
                .setScale(2), true});
        assertEquals("23505", e.sqlState());
        assertEquals("duplicate key value violates unique constraint \"ev_key\"", e.getMessage());
        assertEquals("Key (d, at, amount, ok)=(2024-02-29, 2023-11-14 22:13:20.123, 10.00, t) already exists.",
                e.detail());
        assertEquals("Key (at)=(2023-11-14 22:13:20) is duplicated.", UniqueViolation.duplicated(t,
                new IndexDef("ev_at", 7, new int[] {1}, true, false), new Object[] {null, 1_700_000_000_000L, null,
                        null}).detail());
    }
}
