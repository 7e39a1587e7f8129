package io.meldb.sql.catalog;

import io.meldb.sql.ErrorFields;
import io.meldb.sql.SqlStateException;
import io.meldb.sql.codec.SqlType;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The errors of a unique index or a primary key, worded as PostgreSQL words them (SQLState 23505 with a DETAIL
 * naming the key, and the schema, table and constraint in the error's fields), so that clients and ORMs that parse
 * them find the constraint's name where they expect it. A primary key is the unique constraint {@code <table>_pkey}.
 */
public final class UniqueViolation {
    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("HH:mm:ss");
    private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");
    private UniqueViolation() {
    }

    /** A row whose value is already held: {@code duplicate key value violates unique constraint "name"}. */
    public static SqlStateException of(final TableDef table, final IndexDef index, final Object[] row) {
        return exists(table, index.name(), index.columns(), row);
    }

    /** A row whose primary key is already held: the constraint is {@code <table>_pkey}, as PostgreSQL names it. */
    public static SqlStateException ofPrimaryKey(final TableDef table, final Object[] row) {
        return exists(table, primaryKeyName(table), table.primaryKey(), row);
    }

    /** CREATE UNIQUE INDEX (or ADD UNIQUE) over rows that already hold a value twice. */
    public static SqlStateException duplicated(final TableDef table, final IndexDef index, final Object[] row) {
        return duplicated(table, index.name(), index.columns(), row);
    }

    /** ADD PRIMARY KEY (or a unique index) named {@code constraint} over rows that hold a key twice. */
    public static SqlStateException duplicated(final TableDef table, final String constraint, final int[] columns,
                                               final Object[] row) {
        return new SqlStateException("23505", "could not create unique index \"" + constraint + "\"",
                "Key " + key(table, columns, row) + " is duplicated.",
                ErrorFields.constraint(table.schema(), table.name(), constraint), null);
    }

    /** The name PostgreSQL gives a table's primary key by default. */
    public static String primaryKeyName(final TableDef table) {
        return table.name() + "_pkey";
    }

    private static SqlStateException exists(final TableDef table, final String constraint, final int[] columns,
                                            final Object[] row) {
        return new SqlStateException("23505", "duplicate key value violates unique constraint \"" + constraint
                + "\"", "Key " + key(table, columns, row) + " already exists.",
                ErrorFields.constraint(table.schema(), table.name(), constraint), null);
    }

    /** {@code (a, b)=(1, x)}: the columns and the row's values in them. */
    static String key(final TableDef table, final int[] columns, final Object[] row) {
        final StringBuilder names = new StringBuilder("(");
        final StringBuilder values = new StringBuilder("(");
        for (int i = 0; i < columns.length; i++) {
            final int c = columns[i];
            if (i > 0) {
                names.append(", ");
                values.append(", ");
            }
            names.append(table.columns().get(c).name());
            values.append(text(table.columns().get(c).type().type(), row[c]));
        }
        return names.append(")=").append(values).append(')').toString();
    }

    /** A value of the in-flight form as PostgreSQL's text output writes it (dates, not day numbers). */
    static String text(final SqlType type, final Object value) {
        if (value == null) {
            return "null";
        }
        return switch (type) {
            case DATE -> LocalDate.ofEpochDay(((Number) value).longValue()).toString();
            case TIMESTAMP -> {
                final LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(((Number) value).longValue(), 1000L),
                        (int) Math.floorMod(((Number) value).longValue(), 1000L) * 1_000_000, ZoneOffset.UTC);
                yield t.toLocalDate() + " " + (t.getNano() == 0 ? t.toLocalTime().withNano(0).format(SECONDS)
                        : t.toLocalTime().format(MILLIS));
            }
            case DECIMAL -> value instanceof BigDecimal d ? d.toPlainString() : value.toString();
            case BOOLEAN -> Boolean.TRUE.equals(value) ? "t" : "f";
            default -> value.toString();
        };
    }
}
