package io.meldb.bench.tpcc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * TPC-C's consistency conditions 1 to 3 (clause 3.3.2), checked after a run: each warehouse's w_ytd is the sum of its
 * districts' d_ytd (payment's increments lost or doubled would break it), and per district d_next_o_id - 1 is the
 * newest order and the newest new_order, and the new_order ids are contiguous (new-order's read-modify-write of the
 * next order id and delivery's deletes). Returns the violations, empty when all hold.
 */
public final class TpccConsistency {
    private TpccConsistency() {
    }

    public static List<String> check(final Connection c) throws SQLException {
        c.setAutoCommit(true);
        final List<String> bad = new ArrayList<>();
        try (Statement s = c.createStatement()) {
            final Map<Integer, Long> districtSums = new TreeMap<>();
            try (ResultSet rs = s.executeQuery("SELECT d_w_id, SUM(d_ytd) FROM district GROUP BY d_w_id")) {
                while (rs.next()) {
                    districtSums.put(rs.getInt(1), rs.getLong(2));
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT w_id, w_ytd FROM warehouse ORDER BY w_id")) {
                while (rs.next()) {
                    final long sum = districtSums.getOrDefault(rs.getInt(1), 0L);
                    if (rs.getLong(2) != sum) {
                        bad.add("warehouse " + rs.getInt(1) + ": w_ytd " + rs.getLong(2) + " != sum(d_ytd) " + sum);
                    }
                }
            }
            final Map<String, long[]> orders = new TreeMap<>();
            try (ResultSet rs = s.executeQuery("SELECT o_w_id, o_d_id, MAX(o_id) FROM orders GROUP BY o_w_id, o_d_id")) {
                while (rs.next()) {
                    orders.put(rs.getInt(1) + "/" + rs.getInt(2), new long[] {rs.getLong(3)});
                }
            }
            final Map<String, long[]> newOrders = new TreeMap<>();
            try (ResultSet rs = s.executeQuery("SELECT no_w_id, no_d_id, MAX(no_o_id), MIN(no_o_id), COUNT(*) "
                    + "FROM new_order GROUP BY no_w_id, no_d_id")) {
                while (rs.next()) {
                    newOrders.put(rs.getInt(1) + "/" + rs.getInt(2),
                            new long[] {rs.getLong(3), rs.getLong(4), rs.getLong(5)});
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT d_w_id, d_id, d_next_o_id FROM district ORDER BY d_w_id, d_id")) {
                while (rs.next()) {
                    final String key = rs.getInt(1) + "/" + rs.getInt(2);
                    final long last = rs.getLong(3) - 1;
                    final long[] o = orders.get(key);
                    if (o == null || o[0] != last) {
                        bad.add("district " + key + ": d_next_o_id - 1 = " + last + " but max(o_id) = "
                                + (o == null ? "none" : o[0]));
                    }
                    final long[] no = newOrders.get(key);
                    if (no != null && no[0] != last) {
                        bad.add("district " + key + ": d_next_o_id - 1 = " + last + " but max(no_o_id) = " + no[0]);
                    }
                    if (no != null && no[0] - no[1] + 1 != no[2]) {
                        bad.add("district " + key + ": new_order ids " + no[1] + ".." + no[0] + " but " + no[2]
                                + " rows");
                    }
                }
            }
        }
        return bad;
    }
}
