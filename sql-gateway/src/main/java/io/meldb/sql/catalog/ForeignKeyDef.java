package io.meldb.sql.catalog;

/**
 * A {@code FOREIGN KEY} constraint, kept in the definition of its referencing (child) table: {@code columns} are
 * positions in the child's column list, {@code parentColumns} the referenced columns' positions in the parent's
 * (the parent's primary key or the columns of one of its UNIQUE constraints, in the order of {@code columns}).
 * The parent is named by its table id, so it stays the same table whatever it is renamed to.
 *
 * <p>{@code indexId} is what finds a parent key's children by a range scan instead of a table scan: a hidden index
 * of the child on {@code columns} ({@link IndexDef#hidden()}), or 0 when the child's primary key starts with
 * {@code columns} in that order, so the rows themselves are the range. MATCH SIMPLE: a row with a NULL in one of
 * {@code columns} references nothing. {@code timing} is PostgreSQL's {@code [NOT] DEFERRABLE [INITIALLY
 * DEFERRED|IMMEDIATE]}: whether the NO ACTION checks may wait for COMMIT ({@link DeferredConstraints}).
 */
public record ForeignKeyDef(String name, int[] columns, int parentId, int[] parentColumns, Action onDelete,
                            Action onUpdate, int indexId, Timing timing) {
    /** When the constraint's checks run: PostgreSQL's {@code condeferrable} and {@code condeferred}. */
    public enum Timing {
        /** {@code NOT DEFERRABLE} (the default): checked as each row is written. */
        NOT_DEFERRABLE,
        /** {@code DEFERRABLE INITIALLY IMMEDIATE}: checked as written unless SET CONSTRAINTS defers it. */
        INITIALLY_IMMEDIATE,
        /** {@code DEFERRABLE INITIALLY DEFERRED}: checked at COMMIT unless SET CONSTRAINTS makes it immediate. */
        INITIALLY_DEFERRED;

        public boolean deferrable() {
            return this != NOT_DEFERRABLE;
        }

        /** As a constraint definition ends: empty, {@code " DEFERRABLE"} or {@code " DEFERRABLE INITIALLY DEFERRED"}. */
        public String sql() {
            return switch (this) {
                case NOT_DEFERRABLE -> "";
                case INITIALLY_IMMEDIATE -> " DEFERRABLE";
                case INITIALLY_DEFERRED -> " DEFERRABLE INITIALLY DEFERRED";
            };
        }
    }

    /** What a delete or a key update of a referenced parent row does to its children. */
    public enum Action {
        NO_ACTION("NO ACTION", "a"), RESTRICT("RESTRICT", "r"), CASCADE("CASCADE", "c"),
        SET_NULL("SET NULL", "n"), SET_DEFAULT("SET DEFAULT", "d");

        private final String sql;
        private final String code;

        Action(final String sql, final String code) {
            this.sql = sql;
            this.code = code;
        }

        /** As SQL writes it: {@code NO ACTION}, {@code SET NULL}, ... */
        public String sql() {
            return sql;
        }

        /** pg_constraint's confdeltype / confupdtype letter. */
        public String code() {
            return code;
        }
    }

    public ForeignKeyDef {
        java.util.Objects.requireNonNull(timing, "timing");
        columns = columns.clone();
        parentColumns = parentColumns.clone();
        if (columns.length == 0 || columns.length != parentColumns.length) {
            throw new IllegalArgumentException("foreign key " + name + ": " + columns.length + " columns reference "
                    + parentColumns.length);
        }
    }

    /** A NOT DEFERRABLE constraint. */
    public ForeignKeyDef(final String name, final int[] columns, final int parentId, final int[] parentColumns,
                         final Action onDelete, final Action onUpdate, final int indexId) {
        this(name, columns, parentId, parentColumns, onDelete, onUpdate, indexId, Timing.NOT_DEFERRABLE);
    }

    /** This constraint under another name. */
    public ForeignKeyDef renamed(final String newName) {
        return new ForeignKeyDef(newName, columns, parentId, parentColumns, onDelete, onUpdate, indexId, timing);
    }

    /** Whether the child's primary key serves as the index of this constraint. */
    public boolean usesPrimaryKey() {
        return indexId == 0;
    }
}
