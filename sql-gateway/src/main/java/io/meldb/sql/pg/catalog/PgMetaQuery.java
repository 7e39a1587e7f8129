package io.meldb.sql.pg.catalog;

import io.meldb.sql.pg.PgColumns;
import io.meldb.sql.pg.PgType;
import io.meldb.sql.server.RowCursor;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A system catalog query the PostgreSQL front end answers itself (see {@link PgMetaQueries}): its result
 * columns, known when it is prepared, and its rows, computed from the catalog when it runs with its
 * parameters bound. Each column is a {@link Field}: a type and how one item of the query's row source (a
 * relation, a column, a namespace ...) gives its value.
 */
public final class PgMetaQuery {
    /** Where the rows of a query come from: the items it lists, in the order it sorts them. */
    @FunctionalInterface
    interface Source<T> {
        List<T> items(PgCatalogView view, Object[] parameters);
    }

    /** One column: its PostgreSQL type and its value for an item of the row source (null for SQL NULL). */
    record Field<T>(PgType type, BiFunction<PgCatalogView, T, Object> value) {
        static <T> Field<T> of(final PgType type, final Function<T, Object> value) {
            return new Field<>(type, (view, item) -> value.apply(item));
        }

        static <T> Field<T> constant(final PgType type, final Object value) {
            return new Field<>(type, (view, item) -> value);
        }

        /** The session's user: MeldDB has no owners, so everything is the user's. */
        static <T> Field<T> owner() {
            return new Field<>(PgType.NAME, (view, item) -> view.user());
        }
    }

    private final String family;
    private final PgColumns columns;
    private final int parameterCount;
    private final BiFunction<PgCatalogView, Object[], List<Object[]>> rows;

    private PgMetaQuery(final String family, final PgColumns columns, final int parameterCount,
                        final BiFunction<PgCatalogView, Object[], List<Object[]>> rows) {
        this.family = family;
        this.columns = columns;
        this.parameterCount = parameterCount;
        this.rows = rows;
    }

    /**
     * A query whose columns are {@code names} (as the client named them), each answered by the field of that
     * name (case-insensitive) in {@code fields}; a name without one answers NULL as text.
     */
    static <T> PgMetaQuery of(final String family, final String sql, final List<String> names,
                              final Map<String, Field<T>> fields, final Source<T> source) {
        final List<Field<T>> chosen = new ArrayList<>(names.size());
        final PgType[] types = new PgType[names.size()];
        for (int i = 0; i < names.size(); i++) {
            Field<T> f = fields.get(names.get(i).toLowerCase(Locale.ROOT));
            if (f == null) {
                f = Field.constant(PgType.TEXT, null);
            }
            chosen.add(f);
            types[i] = f.type();
        }
        final PgColumns columns = PgColumns.of(names.toArray(new String[0]), types);
        return new PgMetaQuery(family, columns, PgNameFilter.parameterCount(sql), (view, parameters) -> {
            final List<Object[]> out = new ArrayList<>();
            for (T item : source.items(view, parameters)) {
                final Object[] row = new Object[chosen.size()];
                for (int i = 0; i < row.length; i++) {
                    row[i] = chosen.get(i).value().apply(view, item);
                }
                out.add(row);
            }
            return out;
        });
    }

    /** Which client query this is, for logs and EXPLAIN-like messages ("psql \\d lookup", "pgjdbc getTables"). */
    public String family() {
        return family;
    }

    public PgColumns columns() {
        return columns;
    }

    /** The number of the client's parameters ($1 ... $n); each is bound as text. */
    public int parameterCount() {
        return parameterCount;
    }

    /** Runs the query over {@code view} with bound parameters. */
    public RowCursor run(final PgCatalogView view, final Object[] parameters) {
        final List<Object[]> list = rows.apply(view, parameters);
        return new RowCursor() {
            private int at = -1;

            @Override
            public boolean next() {
                return ++at < list.size();
            }

            @Override
            public Object value(final int column) {
                return list.get(at)[column];
            }

            @Override
            public void close() {
                // nothing is held
            }
        };
    }
}
