package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.AbstractEnumerable;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.ScannableTable;
import org.apache.calcite.schema.Statistic;
import org.apache.calcite.schema.Statistics;
import org.apache.calcite.schema.TableFunction;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.schema.impl.TableFunctionImpl;
import org.apache.calcite.sql.type.SqlTypeName;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * PostgreSQL's {@code generate_series(start, stop [, step])} over integers, as a table function in FROM: the values
 * from {@code start} to {@code stop} inclusive, counting by {@code step} (default 1; negative counts down; zero is
 * 22023, as in PostgreSQL). Rows are made as they are read, so a large series under a LIMIT costs only the rows
 * read, and a cancelled statement stops at its next few thousand rows.
 *
 * <p>The table has two BIGINT columns, the value ({@code generate_series}) and its 1-based ordinal
 * ({@code ordinality}), and {@link SeriesAliases} puts every series in FROM under a SELECT of the value alone, named
 * as PostgreSQL names it. Why not one column: Calcite's table-function scan hands a one-column row on as an array
 * while the limits and sorts above it take a one-column row to be the value itself, so {@code SELECT COUNT(*) FROM
 * (SELECT * FROM generate_series(1, 9) LIMIT 3)} failed with a ClassCastException; the projection of the value out
 * of two columns is what every operator above reads consistently.
 */
public final class GenerateSeries extends AbstractTable implements ScannableTable {
    static final String NAME = "generate_series";
    static final String ORDINALITY = "ordinality";
    /** Rows between looks at the statement's cancel flag. */
    private static final int CANCEL_CHECK_ROWS = 4096;

    private final long start;
    private final long stop;
    private final long step;

    private GenerateSeries(final long start, final long stop, final long step) {
        this.start = start;
        this.stop = stop;
        this.step = step;
    }

    /** The two- and three-argument forms, as the root schema lists them under {@link #NAME}. */
    static List<TableFunction> functions() {
        return List.of(TableFunctionImpl.create(GenerateSeries.class, "series"),
                TableFunctionImpl.create(GenerateSeries.class, "seriesBy"));
    }

    /** {@code generate_series(start, stop)}. */
    public static ScannableTable series(final long start, final long stop) {
        return new GenerateSeries(start, stop, 1);
    }

    /** {@code generate_series(start, stop, step)}. */
    public static ScannableTable seriesBy(final long start, final long stop, final long step) {
        if (step == 0) {
            throw new SqlStateException("22023", "step size cannot equal zero");
        }
        return new GenerateSeries(start, stop, step);
    }

    @Override
    public RelDataType getRowType(final RelDataTypeFactory typeFactory) {
        return typeFactory.builder().add(NAME, SqlTypeName.BIGINT).add(ORDINALITY, SqlTypeName.BIGINT).build();
    }

    @Override
    public Statistic getStatistic() {
        return Statistics.of(rowCount(), List.of());
    }

    /** Whether the series has no value: it starts past its stop in the direction of its step. */
    private boolean isEmpty() {
        return step > 0 ? start > stop : start < stop;
    }

    private double rowCount() {
        if (isEmpty()) {
            return 0;
        }
        return Math.floor(((double) stop - start) / step) + 1;
    }

    @Override
    public Enumerable<Object[]> scan(final DataContext root) {
        final MeldRootSchema schema = root.getRootSchema() == null ? null
                : root.getRootSchema().unwrap(MeldRootSchema.class);
        final MeldTxnContext context = schema == null ? null : schema.context();
        final AtomicBoolean flag = DataContext.Variable.CANCEL_FLAG.get(root);
        final AtomicBoolean cancel = flag != null ? flag : new AtomicBoolean();
        return new AbstractEnumerable<>() {
            @Override
            public Enumerator<Object[]> enumerator() {
                return new Enumerator<>() {
                    private long next = start;
                    private long ordinal;
                    private boolean done = isEmpty();
                    private Object[] current;
                    private int sinceCheck;

                    @Override
                    public Object[] current() {
                        return current;
                    }

                    @Override
                    public boolean moveNext() {
                        if (done) {
                            return false;
                        }
                        if (++sinceCheck == CANCEL_CHECK_ROWS) {
                            sinceCheck = 0;
                            if (cancel.get() || context != null && context.cancelled()) {
                                throw new SqlStateException("57014", "canceling statement due to user request");
                            }
                        }
                        current = new Object[] {next, ++ordinal};
                        // the last value may be the type's end: stop before stepping past it, not after overflow
                        final long remaining = step > 0 ? stop - next : next - stop;
                        if (Long.compareUnsigned(remaining, Math.abs(step)) < 0 || step == Long.MIN_VALUE) {
                            done = true;
                        } else {
                            next += step;
                        }
                        return true;
                    }

                    @Override
                    public void reset() {
                        next = start;
                        ordinal = 0;
                        done = isEmpty();
                        sinceCheck = 0;
                    }

                    @Override
                    public void close() {
                    }
                };
            }
        };
    }
}
