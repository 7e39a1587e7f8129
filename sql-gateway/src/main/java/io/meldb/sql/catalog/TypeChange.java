package io.meldb.sql.catalog;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.codec.ColumnType;
import io.meldb.sql.codec.SqlType;

import java.util.ArrayList;
import java.util.List;

/** ALTER TABLE ... ALTER COLUMN ... TYPE: the widening changes, through the table's {@link RowLayout}. */
final class TypeChange {
    private TypeChange() {
    }

    /**
     * ALTER COLUMN TYPE for the changes that lose nothing and need no conversion of stored keys: a longer VARCHAR
     * (or CHAR to a VARCHAR at least as long), a DECIMAL of more precision and the same scale (both in place), and
     * SMALLINT to INTEGER or BIGINT, INTEGER to BIGINT (a new slot in the payload; not for a key or indexed
     * column, whose keys hold the old width). Anything else: 0A000 naming both types.
     */
    static TableDef apply(final TableDef def, final AlterAction.SetType t) {
        final int c = AlterTableDdl.column(def, t.column());
        final ColumnDef col = def.columns().get(c);
        final ColumnType from = col.type();
        final ColumnType to = t.type();
        if (from.equals(to)) {
            return def;
        }
        final boolean inPlace = from.type() == SqlType.VARCHAR && to.type() == SqlType.VARCHAR
                && to.precision() >= from.precision()
                || from.type() == SqlType.DECIMAL && to.type() == SqlType.DECIMAL && to.scale() == from.scale()
                && to.precision() >= from.precision();
        final boolean widerInteger = rank(from.type()) > 0 && rank(to.type()) > rank(from.type());
        if (!inPlace && !widerInteger) {
            throw new SqlStateException("0A000", "ALTER COLUMN \"" + col.name() + "\" TYPE from " + from.sqlName()
                    + " to " + to.sqlName() + " is not supported: only widening changes are (INTEGER to BIGINT, "
                    + "SMALLINT to INTEGER or BIGINT, a longer VARCHAR, a DECIMAL of more precision and the same "
                    + "scale)");
        }
        if (widerInteger && (AlterTableDdl.keyColumn(def, c) || indexed(def, c))) {
            throw new SqlStateException("0A000", "ALTER COLUMN \"" + col.name() + "\" TYPE from " + from.sqlName()
                    + " to " + to.sqlName() + " is not supported for a primary-key or indexed column (its keys hold "
                    + "the old width)");
        }
        if (col.identity() != ColumnDef.Identity.NONE || col.dflt() != null
                && col.dflt().kind() == ColumnDefault.Kind.NEXTVAL) {
            throw new SqlStateException("0A000", "ALTER COLUMN \"" + col.name() + "\" TYPE of a column with a "
                    + "sequence default is not supported");
        }
        ColumnDefault dflt = col.dflt();
        if (dflt != null && dflt.kind() == ColumnDefault.Kind.RANDOM_UUID && to.type() != SqlType.UUID
                && to.type() != SqlType.TEXT && to.type() != SqlType.VARCHAR && to.type() != SqlType.CHAR) {
            throw new SqlStateException("42804", "default for column \"" + col.name() + "\" cannot be cast "
                    + "automatically to type " + to.sqlName().toLowerCase(java.util.Locale.ROOT));
        }
        if (dflt != null && dflt.kind() == ColumnDefault.Kind.CONSTANT) {
            dflt = ColumnDefault.constant(to.coerce(dflt.value()), dflt.sql());
        }
        final List<ColumnDef> columns = new ArrayList<>(def.columns());
        columns.set(c, new ColumnDef(col.name(), to, col.nullable(), dflt, col.identity()));
        return new TableDef(def.db(), def.schema(), def.name(), def.id(), columns, def.primaryKey(), def.indexes(),
                def.hiddenRowId(), def.checks(), def.foreignKeys(), def.layout().withColumnRetyped(c, to, widerInteger));
    }

    private static int rank(final SqlType t) {
        return switch (t) {
            case SMALLINT -> 1;
            case INTEGER -> 2;
            case BIGINT -> 3;
            default -> 0;
        };
    }

    private static boolean indexed(final TableDef def, final int c) {
        for (IndexDef i : def.indexes()) {
            for (int k : i.columns()) {
                if (k == c) {
                    return true;
                }
            }
        }
        return false;
    }

}
