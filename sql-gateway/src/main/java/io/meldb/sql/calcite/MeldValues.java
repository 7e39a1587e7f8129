package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.adapter.enumerable.EnumerableConvention;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableRelImplementor;
import org.apache.calcite.adapter.enumerable.JavaRowFormat;
import org.apache.calcite.adapter.enumerable.PhysType;
import org.apache.calcite.adapter.enumerable.PhysTypeImpl;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.linq4j.tree.BlockBuilder;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.plan.Convention;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.convert.ConverterRule;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.rel.logical.LogicalValues;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexLiteral;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A large VALUES list (a many-row INSERT, a long IN list that Calcite turned into a join with VALUES) without
 * Calcite's code for it: EnumerableValues writes every value into the generated method, which the JVM refuses
 * beyond 64 KB of bytecode ("Code grows beyond 64 KB"). Here the rows are serialized once at planning into string
 * constants (which live in the class's constant pool, not in the method's code) and decoded at execution by
 * {@link #rows}. Small VALUES stay Calcite's.
 */
public final class MeldValues extends Values implements EnumerableRel {
    /** Values (rows × columns) from which on the rows travel as constants. */
    static final int MIN_CELLS = 256;
    /** Characters per string constant (Base64 is ASCII: at most 65535 bytes each in the constant pool). */
    private static final int CHUNK = 60_000;

    private static final Method ROWS = method();

    static final ConverterRule RULE = ConverterRule.Config.INSTANCE
            .withConversion(LogicalValues.class, v -> v.getTuples().size() * v.getRowType().getFieldCount()
                            >= MIN_CELLS && encodable(v),
                    Convention.NONE, EnumerableConvention.INSTANCE, "MeldValuesRule")
            .withRuleFactory(Rule::new)
            .toRule(ConverterRule.class);

    private MeldValues(final RelOptCluster cluster, final RelDataType rowType,
                       final com.google.common.collect.ImmutableList<com.google.common.collect.ImmutableList<RexLiteral>> tuples,
                       final RelTraitSet traits) {
        super(cluster, List.of(), rowType, tuples, traits);
    }

    @Override
    public RelNode copy(final RelTraitSet traitSet, final List<RelNode> inputs) {
        return new MeldValues(getCluster(), getRowType(), getTuples(), traitSet);
    }

    @Override
    public RelOptCost computeSelfCost(final RelOptPlanner planner, final RelMetadataQuery mq) {
        // cheaper than EnumerableValues, which would not compile at this size
        final double rows = mq.getRowCount(this) * 0.5;
        return planner.getCostFactory().makeCost(rows, 1, 0);
    }

    @Override
    public Result implement(final EnumerableRelImplementor implementor, final Prefer pref) {
        final PhysType physType = PhysTypeImpl.of(implementor.getTypeFactory(), getRowType(), JavaRowFormat.ARRAY,
                false);
        final String encoded = encode(values(this));
        final List<Expression> chunks = new ArrayList<>();
        for (int i = 0; i < encoded.length(); i += CHUNK) {
            chunks.add(Expressions.constant(encoded.substring(i, Math.min(encoded.length(), i + CHUNK))));
        }
        final BlockBuilder builder = new BlockBuilder();
        builder.add(Expressions.return_(null, Expressions.call(ROWS, Expressions.newArrayInit(String.class,
                chunks))));
        return implementor.result(physType, builder.toBlock());
    }

    /** Called by the generated code: the rows again. */
    public static Enumerable<Object[]> rows(final String[] chunks) {
        final byte[] bytes = Base64.getDecoder().decode(String.join("", chunks));
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
            in.setObjectInputFilter(MeldValues::allowed);
            return Linq4j.asEnumerable((Object[][]) in.readObject());
        } catch (IOException | ClassNotFoundException e) {
            throw new SqlStateException("XX000", "could not decode the rows of a VALUES list: " + e);
        }
    }

    private static ObjectInputFilter.Status allowed(final ObjectInputFilter.FilterInfo info) {
        final Class<?> c = info.serialClass();
        if (c == null || c.isArray() || c == Integer.class || c == Long.class || c == Short.class
                || c == Byte.class || c == Double.class || c == Float.class || c == Boolean.class
                || c == String.class || c == BigDecimal.class || c == java.math.BigInteger.class
                || c == Number.class) {
            return ObjectInputFilter.Status.ALLOWED;
        }
        return ObjectInputFilter.Status.REJECTED;
    }

    private static boolean encodable(final Values v) {
        try {
            values(v);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The rows as Calcite's enumerable code represents them (DATE as days, TIMESTAMP as milliseconds, ...). */
    private static Object[][] values(final Values v) {
        final List<org.apache.calcite.rel.type.RelDataTypeField> fields = v.getRowType().getFieldList();
        final Object[][] rows = new Object[v.getTuples().size()][];
        for (int r = 0; r < rows.length; r++) {
            final List<RexLiteral> tuple = v.getTuples().get(r);
            final Object[] row = new Object[tuple.size()];
            for (int c = 0; c < row.length; c++) {
                row[c] = value(tuple.get(c), fields.get(c).getType());
            }
            rows[r] = row;
        }
        return rows;
    }

    private static Object value(final RexLiteral literal, final RelDataType type) {
        if (literal.isNull()) {
            return null;
        }
        final Class<?> javaClass = switch (type.getSqlTypeName()) {
            case TINYINT -> Byte.class;
            case SMALLINT -> Short.class;
            case INTEGER, DATE, TIME -> Integer.class;
            case BIGINT, TIMESTAMP -> Long.class;
            case DECIMAL -> BigDecimal.class;
            case DOUBLE, FLOAT -> Double.class;
            case REAL -> Float.class;
            case CHAR, VARCHAR -> String.class;
            case BOOLEAN -> Boolean.class;
            default -> throw new IllegalArgumentException("no constant form for " + type);
        };
        final Object value = literal.getValueAs(javaClass);
        if (value == null) {
            throw new IllegalArgumentException("no value");
        }
        return value;
    }

    private static String encode(final Object[][] rows) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(rows);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Base64.getEncoder().encodeToString(bytes.toByteArray());
    }

    private static Method method() {
        try {
            return MeldValues.class.getMethod("rows", String[].class);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    /** LogicalValues with at least {@link #MIN_CELLS} values whose types have a constant form. */
    private static final class Rule extends ConverterRule {
        Rule(final Config config) {
            super(config);
        }

        @Override
        public RelNode convert(final RelNode rel) {
            final LogicalValues v = (LogicalValues) rel;
            return new MeldValues(v.getCluster(), v.getRowType(), v.getTuples(),
                    v.getTraitSet().replace(EnumerableConvention.INSTANCE));
        }
    }
}
