package io.meldb.sql.calcite;

import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.codec.SqlType;
import org.apache.calcite.adapter.enumerable.EnumerableSort;
import org.apache.calcite.rel.RelCollation;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.tools.Program;

import java.util.ArrayList;
import java.util.List;

/**
 * Drops a sort whose input is a {@link MeldTableScan} that already returns its rows in that order: a key range is
 * read in key order, so {@code WHERE g = ? ORDER BY k} over a key (g, k) needs no sort. Calcite's planner here
 * runs without the collation trait, so it cannot know; this program step looks at the chosen plan. Besides the
 * sort's cost, it matters for serializable reads: a sort reads its whole input, so an {@code ORDER BY k LIMIT 1}
 * depended on the whole key range and conflicted with every insert into it (TPC-C's delivery against
 * new-order, docs/perf/tpcc.md); without the sort the scan stops after the rows the limit takes and depends only
 * on those (MeldRuntime's range iterator).
 *
 * <p>Only ascending orders of integer key columns (SMALLINT, INTEGER, BIGINT) are matched, whose key encoding
 * sorts as SQL does; nulls must sort last, as they do in a key (a primary key column is never null). Key
 * columns the scan fixes by equality may appear anywhere in the sort or not at all.
 */
final class KeyOrderedSorts {
    private KeyOrderedSorts() {
    }

    /** The program step: the chosen plan without the sorts its scans make redundant. */
    static Program program() {
        return (planner, rel, traits, materializations, lattices) -> strip(rel, false);
    }

    /**
     * {@code rel} without its redundant sorts; {@code keep} when its parent needs it to carry its collation as a
     * trait (a merge join checks that its inputs do, and a scan has none), so the sort stays.
     */
    private static RelNode strip(final RelNode rel, final boolean keep) {
        if (!keep && rel instanceof EnumerableSort sort && sort.offset == null && sort.fetch == null
                && sort.getInput() instanceof MeldTableScan scan && inKeyOrder(scan, sort.getCollation())) {
            return scan;
        }
        final boolean inputsKeep = rel instanceof org.apache.calcite.adapter.enumerable.EnumerableMergeJoin;
        final List<RelNode> inputs = new ArrayList<>(rel.getInputs().size());
        boolean changed = false;
        for (RelNode input : rel.getInputs()) {
            final RelNode next = strip(input, inputsKeep);
            changed |= next != input;
            inputs.add(next);
        }
        return changed ? rel.copy(rel.getTraitSet(), inputs) : rel;
    }

    /** Whether the scan's rows come in {@code collation}'s order. */
    static boolean inKeyOrder(final MeldTableScan scan, final RelCollation collation) {
        final TableDef def = scan.meldTable().def();
        if (scan.getRowType().getFieldCount() != def.columns().size()) {
            return false;
        }
        final int[] key = scan.keyColumns();
        final int fixed = scan.spec().equalities().size();
        int next = fixed;
        for (RelFieldCollation field : collation.getFieldCollations()) {
            final int column = field.getFieldIndex();
            if (indexOf(key, column, 0, fixed) >= 0) {
                continue; // a constant of the scan: any position in the order is satisfied
            }
            if (next >= key.length || key[next] != column
                    || field.getDirection() != RelFieldCollation.Direction.ASCENDING
                    || field.nullDirection != RelFieldCollation.NullDirection.LAST
                        && def.columns().get(column).nullable()) {
                return false;
            }
            final SqlType type = def.columns().get(column).type().type();
            if (type != SqlType.SMALLINT && type != SqlType.INTEGER && type != SqlType.BIGINT) {
                return false;
            }
            next++;
        }
        return true;
    }

    private static int indexOf(final int[] values, final int value, final int from, final int to) {
        for (int i = from; i < to; i++) {
            if (values[i] == value) {
                return i;
            }
        }
        return -1;
    }
}
