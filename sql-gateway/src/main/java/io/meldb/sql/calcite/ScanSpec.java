package io.meldb.sql.calcite;

import org.apache.calcite.rex.RexNode;

import java.util.List;

/**
 * Which keys a {@link MeldTableScan} reads: the whole table, or a range of the primary key or of an index given
 * by equalities on a prefix of its columns and an optional lower and upper bound on the next column. The values
 * are literals or dynamic parameters ({@code ?}), in the order of the key's columns.
 *
 * @param index null for the primary key, else the index name
 */
public record ScanSpec(String index, List<RexNode> equalities, RexNode lower, boolean lowerInclusive,
                       RexNode upper, boolean upperInclusive) {
    public static final ScanSpec FULL = new ScanSpec(null, List.of(), null, false, null, false);

    public boolean isFull() {
        return index == null && equalities.isEmpty() && lower == null && upper == null;
    }
}
