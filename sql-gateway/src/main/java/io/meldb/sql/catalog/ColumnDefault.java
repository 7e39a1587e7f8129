package io.meldb.sql.catalog;

/**
 * A column's {@code DEFAULT}: a constant (already coerced to the column's type when the table was created), the
 * clock ({@code CURRENT_TIMESTAMP}, {@code now()}, {@code LOCALTIMESTAMP}; {@code CURRENT_DATE}), a random UUID
 * ({@code gen_random_uuid()}) or the next value of a sequence ({@code nextval('s')}, and what SERIAL and identity columns get). {@code sql} is the expression as
 * PostgreSQL shows it ({@code information_schema.columns.column_default}, psql's {@code \d}); {@code sequence} is
 * the sequence's schema-qualified name for {@link Kind#NEXTVAL} (null while CREATE TABLE has yet to create the
 * column's own sequence).
 */
public record ColumnDefault(Kind kind, Object value, String sql, String sequenceSchema, String sequence) {
    /** Stored by ordinal ({@code TableDefCodec}): new kinds go at the end. */
    public enum Kind { CONSTANT, NOW, TODAY, NEXTVAL, RANDOM_UUID }

    public static ColumnDefault constant(final Object value, final String sql) {
        return new ColumnDefault(Kind.CONSTANT, value, sql, null, null);
    }

    public static ColumnDefault now() {
        return new ColumnDefault(Kind.NOW, null, "CURRENT_TIMESTAMP", null, null);
    }

    public static ColumnDefault today() {
        return new ColumnDefault(Kind.TODAY, null, "CURRENT_DATE", null, null);
    }

    /** {@code gen_random_uuid()} (also {@code uuid_generate_v4()}): a version 4 UUID per row. */
    public static ColumnDefault randomUuid() {
        return new ColumnDefault(Kind.RANDOM_UUID, null, "gen_random_uuid()", null, null);
    }

    /** Whether each row needs a value of its own (a sequence's next value, a random UUID), not one fixed value. */
    public boolean perRow() {
        return kind == Kind.NEXTVAL || kind == Kind.RANDOM_UUID;
    }

    /** {@code nextval('schema.name')}; {@code schema} null means the statement's schema. */
    public static ColumnDefault nextval(final String schema, final String name) {
        return new ColumnDefault(Kind.NEXTVAL, null, "nextval('" + (schema == null ? "" : quote(schema) + ".")
                + quote(name) + "'::regclass)", schema, name);
    }

    /** The default of a SERIAL or identity column before CREATE TABLE has created (and named) its sequence. */
    public static ColumnDefault ownedSequence() {
        return new ColumnDefault(Kind.NEXTVAL, null, null, null, null);
    }

    /** Whether this default is a sequence CREATE TABLE still has to create. */
    public boolean needsSequence() {
        return kind == Kind.NEXTVAL && sequence == null;
    }

    /** The sequence's name as {@code nextval} takes it ({@code schema.name}, parts quoted where needed). */
    public String qualifiedSequence() {
        return (sequenceSchema == null ? "" : quote(sequenceSchema) + ".") + quote(sequence);
    }

    /**
     * The value for a row written now, in the in-flight form (TIMESTAMP as UTC milliseconds, DATE as days), taking
     * sequence values from {@code nextval} (called with {@link #qualifiedSequence()}).
     */
    public Object evaluate(final java.util.function.ToLongFunction<String> nextval) {
        return switch (kind) {
            case CONSTANT -> value;
            case NOW -> System.currentTimeMillis();
            case TODAY -> (int) Math.floorDiv(System.currentTimeMillis(), 86_400_000L);
            case NEXTVAL -> nextval.applyAsLong(qualifiedSequence());
            case RANDOM_UUID -> java.util.UUID.randomUUID().toString();
        };
    }

    /** The expression as Calcite reads it (MeldDB's dialect, for the INSERTs Calcite plans). */
    public String calciteSql() {
        return switch (kind) {
            case NEXTVAL -> "nextval('" + (sequenceSchema == null ? "" : quote(sequenceSchema).replace("'", "''")
                    + ".") + quote(sequence).replace("'", "''") + "')";
            case NOW -> "CURRENT_TIMESTAMP(3)"; // the milliseconds a row written on the fast path gets too
            case TODAY -> "CURRENT_DATE";
            case RANDOM_UUID -> "gen_random_uuid()";
            case CONSTANT -> throw new IllegalStateException("a constant default is a literal");
        };
    }

    /** A name as an identifier in SQL text: plain lower-case names bare, others double-quoted. */
    static String quote(final String name) {
        return name.matches("[a-z_][a-z0-9_$]*") ? name : '"' + name.replace("\"", "\"\"") + '"';
    }
}
