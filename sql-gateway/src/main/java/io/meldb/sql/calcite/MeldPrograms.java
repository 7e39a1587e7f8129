package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.adapter.enumerable.EnumerableRules;
import org.apache.calcite.plan.RelOptListener;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.hep.HepMatchOrder;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.plan.hep.HepProgramBuilder;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.metadata.DefaultRelMetadataProvider;
import org.apache.calcite.rel.rules.CoreRules;
import org.apache.calcite.rel.rules.JoinPushThroughJoinRule;
import org.apache.calcite.sql2rel.ConvertToChecked;
import org.apache.calcite.tools.Program;
import org.apache.calcite.tools.Programs;

import java.util.function.BooleanSupplier;

/**
 * MeldDB's planning program: Calcite's standard sequence (sub-query removal, decorrelation, field trimming,
 * Volcano, calc) with three changes that keep planning effort bounded whatever the query.
 * <ul>
 *   <li>Inner joins of three or more inputs are ordered heuristically, before Volcano: a Hep pass gathers them
 *       into a MultiJoin and expands it with Calcite's bushy join optimizer (greedy, by estimated row counts);
 *       the rules that make Volcano search every join order (associate, push-through) are removed, as their
 *       search grows exponentially with the number of tables. From {@link #LARGE_JOIN_COUNT} joins on, Volcano
 *       does not flip join inputs either. A query with an outer join keeps its written join order.</li>
 *   <li>Every rule attempt checks the statement's cancel flag (timeout, CancelRequest, Statement.cancel), and a
 *       planning that attempts more than {@link #MAX_RULE_ATTEMPTS} rules fails with 54001 instead of running
 *       on.</li>
 *   <li>A sort over a key-range scan that already returns its order is dropped ({@link KeyOrderedSorts}).</li>
 *   <li>Every operator's input checks the statement's cancel flag at every row, and the inputs that operators keep
 *       in memory are charged to the statement's budget ({@link MeldBudget}).</li>
 *   <li>MeldDB's own rules (key ranges, lookup joins, large VALUES, table modify) are registered here, for every
 *       statement, not only those that read a table.</li>
 * </ul>
 * Before all of it, CHAR comparisons get PostgreSQL's padding semantics ({@link CharComparisons}) and integer
 * arithmetic becomes overflow-checked; a constant out of REAL's range is refused ({@link RealLiterals}).
 */
public final class MeldPrograms {
    /** Rule attempts after which planning gives up (a 64-way join takes well under a tenth of it). */
    static final int MAX_RULE_ATTEMPTS = 2_000_000;
    /** Joins from which on the join order is chosen heuristically (3 joins: four tables). */
    static final int HEURISTIC_JOIN_COUNT = 2;
    /**
     * Joins from which on Volcano does not even flip a join's inputs: 64 tables planned in 1.7-2.3 s with the flips
     * and in about 0.2 s without them (JoinOrderTest).
     */
    static final int LARGE_JOIN_COUNT = 8;

    private MeldPrograms() {
    }

    /** The program; {@code cancelled} answers whether the statement being planned was cancelled. */
    public static Program program(final BooleanSupplier cancelled) {
        return program(cancelled, null);
    }

    /** The program, with EXPLAIN ANALYZE's probes above every operator when {@code analyze} is not null. */
    public static Program program(final BooleanSupplier cancelled, final OperatorStats analyze) {
        final Program rewrite = (planner, rel, traits, materializations, lattices) -> MeldView.refuseWrite(rel)
                .accept(new CharComparisons.Shuttle())
                .accept(new BooleanLiterals())
                .accept(new RealLiterals())
                .accept(new PgSignatures())
                .accept(new ArraySubscripts())
                .accept(new ConvertToChecked(rel.getCluster().getRexBuilder(), true));
        return Programs.sequence(rewrite,
                Programs.subQuery(DefaultRelMetadataProvider.INSTANCE),
                Programs.decorrelate(),
                NumericAggregates.program(),
                Programs.measure(DefaultRelMetadataProvider.INSTANCE),
                trim(),
                joinOrder(),
                volcano(cancelled),
                Programs.calc(DefaultRelMetadataProvider.INSTANCE),
                KeyOrderedSorts.program(),
                MeldBudget.program(),
                analyze == null ? Programs.sequence() : MeldAnalyze.program(analyze));
    }

    /**
     * Calcite's field trimming, which only makes a plan narrower: where Calcite's trimmer fails on a plan (it loses
     * a correlation variable's field when a query has an ARRAY subquery beside another correlated subquery, as
     * Django's constraint introspection has), the plan goes on untrimmed, which answers the same.
     */
    private static Program trim() {
        final Program trim = Programs.trim();
        return (planner, rel, traits, materializations, lattices) -> {
            try {
                return trim.run(planner, rel, traits, materializations, lattices);
            } catch (org.apache.calcite.util.mapping.Mappings.NoElementException e) {
                return rel;
            }
        };
    }

    /**
     * Orders the joins of a query with many of them: into a MultiJoin, then out as a bushy tree (as Calcite's
     * heuristicJoinOrder does).
     */
    private static Program joinOrder() {
        final HepProgram hep = new HepProgramBuilder()
                .addRuleInstance(CoreRules.FILTER_INTO_JOIN)
                .addMatchOrder(HepMatchOrder.BOTTOM_UP)
                .addRuleInstance(CoreRules.JOIN_TO_MULTI_JOIN)
                .addMatchOrder(HepMatchOrder.BOTTOM_UP)
                .addRuleInstance(CoreRules.MULTI_JOIN_OPTIMIZE_BUSHY)
                .build();
        final Program gather = Programs.of(hep, false, DefaultRelMetadataProvider.INSTANCE);
        return (planner, rel, traits, materializations, lattices) -> RelOptUtil.countJoins(rel) >= HEURISTIC_JOIN_COUNT
                && onlyInnerJoins(rel) ? gather.run(planner, rel, traits, materializations, lattices) : rel;
    }

    /**
     * Whether every join of the tree is an inner join: the bushy ordering refuses outer joins, so a query with one
     * keeps the join order it was written in (Volcano then only flips each join's inputs).
     */
    private static boolean onlyInnerJoins(final RelNode rel) {
        if (rel instanceof org.apache.calcite.rel.core.Join join && join.getJoinType() != JoinRelType.INNER) {
            return false;
        }
        if (rel instanceof org.apache.calcite.rel.core.Correlate) {
            return false;
        }
        for (RelNode input : rel.getInputs()) {
            if (!onlyInnerJoins(input)) {
                return false;
            }
        }
        return true;
    }

    /** Volcano over the planner's rules, adjusted as the class comment says. */
    private static Program volcano(final BooleanSupplier cancelled) {
        return (planner, rel, traits, materializations, lattices) -> {
            registerRules(planner);
            planner.removeRule(CoreRules.JOIN_ASSOCIATE);
            planner.removeRule(JoinPushThroughJoinRule.LEFT);
            planner.removeRule(JoinPushThroughJoinRule.RIGHT);
            if (RelOptUtil.countJoins(rel) >= LARGE_JOIN_COUNT) {
                // the order is chosen: flipping every join's inputs would double the alternatives per join,
                // and inferring the predicates a join of many tables implies grows with the square of its
                // equalities, for constants an aggregate could pull up
                planner.removeRule(CoreRules.JOIN_COMMUTE);
                planner.removeRule(CoreRules.AGGREGATE_PROJECT_PULL_UP_CONSTANTS);
            }
            planner.addListener(new Effort(cancelled));
            planner.setRoot(rel);
            final RelNode root = rel.getTraitSet().equals(traits) ? rel : planner.changeTraits(rel, traits);
            planner.setRoot(root);
            return planner.chooseDelegate().findBestExp();
        };
    }

    /** Adds MeldDB's rules to a planner (and removes Calcite's collection-based table modify). */
    static void registerRules(final RelOptPlanner planner) {
        planner.addRule(MeldFilterRule.INSTANCE);
        planner.addRule(MeldTableModifyRule.INSTANCE);
        planner.addRule(MeldValues.RULE);
        planner.addRule(MeldLookupJoinRule.INSTANCE);
        planner.removeRule(EnumerableRules.ENUMERABLE_TABLE_MODIFICATION_RULE);
    }

    private static boolean containsMultiJoin(final RelNode rel) {
        if (rel instanceof org.apache.calcite.rel.rules.MultiJoin) {
            return true;
        }
        for (RelNode input : rel.getInputs()) {
            if (containsMultiJoin(input)) {
                return true;
            }
        }
        return false;
    }

    /** Counts rule attempts and stops planning when the statement is cancelled or the budget is spent. */
    private static final class Effort implements RelOptListener {
        private final BooleanSupplier cancelled;
        private int attempts;

        Effort(final BooleanSupplier cancelled) {
            this.cancelled = cancelled;
        }

        @Override
        public void ruleAttempted(final RuleAttemptedEvent event) {
            if (!event.isBefore()) {
                return;
            }
            if (++attempts > MAX_RULE_ATTEMPTS) {
                throw new SqlStateException("54001", "statement too complex: planning it took more than "
                        + MAX_RULE_ATTEMPTS + " rule attempts");
            }
            if ((attempts & 63) == 0 && cancelled.getAsBoolean()) {
                throw new SqlStateException("57014", "canceling statement due to user request");
            }
        }

        @Override
        public void relEquivalenceFound(final RelEquivalenceEvent event) {
        }

        @Override
        public void ruleProductionSucceeded(final RuleProductionEvent event) {
        }

        @Override
        public void relDiscarded(final RelDiscardedEvent event) {
        }

        @Override
        public void relChosen(final RelChosenEvent event) {
        }
    }
}
