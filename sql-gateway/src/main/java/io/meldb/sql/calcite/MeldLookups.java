package io.meldb.sql.calcite;

import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.AbstractEnumerable;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.rel.core.JoinRelType;

import java.util.Arrays;

/** What the code Calcite generates for {@link MeldLookupJoin} calls at run time: one key lookup per outer row. */
public final class MeldLookups {
    private static final JoinRelType[] JOIN_TYPES = JoinRelType.values();

    private MeldLookups() {
    }

    /**
     * For every outer row, the rows of the table whose key (primary key, or index {@code indexId}) starts with the
     * values {@code keySources} names: an outer field ({@code >= 0}) or a constant ({@code -1 - position}). A null
     * key value matches nothing, as an equality with NULL does in SQL.
     */
    public static Enumerable<Object[]> join(final DataContext root, final String schema, final int tableId,
                                            final int indexId, final Enumerable<Object[]> outer,
                                            final int[] keySources, final Object[] constants, final int joinType,
                                            final int tableWidth) {
        final JoinRelType type = JOIN_TYPES[joinType];
        return new AbstractEnumerable<>() {
            @Override
            public Enumerator<Object[]> enumerator() {
                return new LookupEnumerator(root, schema, tableId, indexId, outer.enumerator(), keySources,
                        constants, type, tableWidth);
            }
        };
    }

    /** Walks the outer rows and, for each, the rows its key finds. */
    private static final class LookupEnumerator implements Enumerator<Object[]> {
        private final DataContext root;
        private final String schema;
        private final int tableId;
        private final int indexId;
        private final Enumerator<Object[]> outer;
        private final int[] keySources;
        private final Object[] constants;
        private final JoinRelType type;
        private final int tableWidth;
        private Object[] outerRow;
        private Enumerator<Object[]> inner;
        private boolean matched;
        private Object[] current;

        LookupEnumerator(final DataContext root, final String schema, final int tableId, final int indexId,
                         final Enumerator<Object[]> outer, final int[] keySources, final Object[] constants,
                         final JoinRelType type, final int tableWidth) {
            this.root = root;
            this.schema = schema;
            this.tableId = tableId;
            this.indexId = indexId;
            this.outer = outer;
            this.keySources = keySources;
            this.constants = constants;
            this.type = type;
            this.tableWidth = tableWidth;
        }

        @Override
        public Object[] current() {
            return current;
        }

        @Override
        public boolean moveNext() {
            while (true) {
                if (inner == null) {
                    if (!outer.moveNext()) {
                        return false;
                    }
                    outerRow = outer.current();
                    matched = false;
                    final Object[] key = key(outerRow);
                    inner = key == null ? null : lookup(key);
                    if (inner == null) {
                        if (type == JoinRelType.LEFT) {
                            current = concat(outerRow, null);
                            return true;
                        }
                        continue;
                    }
                }
                if (inner.moveNext()) {
                    if (type == JoinRelType.SEMI) {
                        closeInner();
                        current = outerRow;
                        return true;
                    }
                    matched = true;
                    current = concat(outerRow, inner.current());
                    return true;
                }
                closeInner();
                if (!matched && type == JoinRelType.LEFT) {
                    current = concat(outerRow, null);
                    return true;
                }
            }
        }

        /** The rows with this key; none when a value does not fit the key column (a BIGINT past INTEGER's range). */
        private Enumerator<Object[]> lookup(final Object[] key) {
            try {
                return MeldRuntime.scan(root, schema, tableId, indexId, key, false, null, false, false, null, false)
                        .enumerator();
            } catch (io.meldb.sql.codec.ValueException e) {
                return null; // equal to no value of the column
            }
        }

        private Object[] key(final Object[] row) {
            final Object[] key = new Object[keySources.length];
            for (int i = 0; i < key.length; i++) {
                final int s = keySources[i];
                key[i] = s >= 0 ? row[s] : constants[-1 - s];
                if (key[i] == null) {
                    return null;
                }
            }
            return key;
        }

        private Object[] concat(final Object[] left, final Object[] right) {
            final Object[] out = Arrays.copyOf(left, left.length + tableWidth);
            if (right != null) {
                System.arraycopy(right, 0, out, left.length, tableWidth);
            }
            return out;
        }

        private void closeInner() {
            if (inner != null) {
                inner.close();
                inner = null;
            }
        }

        @Override
        public void reset() {
            closeInner();
            outer.reset();
        }

        @Override
        public void close() {
            closeInner();
            outer.close();
        }
    }
}
