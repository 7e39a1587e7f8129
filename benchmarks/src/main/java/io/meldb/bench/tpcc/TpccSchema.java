package io.meldb.bench.tpcc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.List;

/**
 * TPC-C's nine tables (TPC-C 5.11 clause 1.3) in SQL every target accepts, and their initial population (clause
 * 4.3.3) through batched INSERTs. Deviations, all documented in docs/perf/tpcc.md: money is BIGINT cents and tax and
 * discount rates INTEGER basis points instead of DECIMAL (so the year-to-date totals are integer columns that
 * MeldDB's SQL fast path can turn into commutative increments); CHAR columns are VARCHAR; the integer counters come
 * first among each table's value columns and are NOT NULL (an increment needs its column at a fixed offset of the
 * row); history has no primary key, as in TPC-C.
 */
public final class TpccSchema {
    static final List<String> TABLES = List.of("history", "new_order", "order_line", "orders", "stock", "item",
            "customer", "district", "warehouse");

    static final List<String> DDL = List.of(
            "CREATE TABLE warehouse (w_id INTEGER NOT NULL, w_ytd BIGINT NOT NULL, w_tax INTEGER NOT NULL, "
                    + "w_name VARCHAR(10), w_street_1 VARCHAR(20), w_street_2 VARCHAR(20), w_city VARCHAR(20), "
                    + "w_state VARCHAR(2), w_zip VARCHAR(9), PRIMARY KEY (w_id))",
            "CREATE TABLE district (d_w_id INTEGER NOT NULL, d_id INTEGER NOT NULL, d_ytd BIGINT NOT NULL, "
                    + "d_next_o_id INTEGER NOT NULL, d_tax INTEGER NOT NULL, d_name VARCHAR(10), "
                    + "d_street_1 VARCHAR(20), d_street_2 VARCHAR(20), d_city VARCHAR(20), d_state VARCHAR(2), "
                    + "d_zip VARCHAR(9), PRIMARY KEY (d_w_id, d_id))",
            "CREATE TABLE customer (c_w_id INTEGER NOT NULL, c_d_id INTEGER NOT NULL, c_id INTEGER NOT NULL, "
                    + "c_balance BIGINT NOT NULL, c_ytd_payment BIGINT NOT NULL, c_payment_cnt INTEGER NOT NULL, "
                    + "c_delivery_cnt INTEGER NOT NULL, c_discount INTEGER NOT NULL, c_credit_lim BIGINT NOT NULL, "
                    + "c_first VARCHAR(16), c_middle VARCHAR(2), c_last VARCHAR(16), c_street_1 VARCHAR(20), "
                    + "c_street_2 VARCHAR(20), c_city VARCHAR(20), c_state VARCHAR(2), c_zip VARCHAR(9), "
                    + "c_phone VARCHAR(16), c_since TIMESTAMP, c_credit VARCHAR(2), c_data VARCHAR(500), "
                    + "PRIMARY KEY (c_w_id, c_d_id, c_id))",
            "CREATE INDEX customer_last ON customer (c_w_id, c_d_id, c_last, c_first)",
            "CREATE TABLE history (h_c_id INTEGER, h_c_d_id INTEGER, h_c_w_id INTEGER, h_d_id INTEGER, "
                    + "h_w_id INTEGER, h_date TIMESTAMP, h_amount BIGINT, h_data VARCHAR(24))",
            "CREATE TABLE new_order (no_w_id INTEGER NOT NULL, no_d_id INTEGER NOT NULL, no_o_id INTEGER NOT NULL, "
                    + "PRIMARY KEY (no_w_id, no_d_id, no_o_id))",
            "CREATE TABLE orders (o_w_id INTEGER NOT NULL, o_d_id INTEGER NOT NULL, o_id INTEGER NOT NULL, "
                    + "o_c_id INTEGER NOT NULL, o_ol_cnt INTEGER NOT NULL, o_all_local INTEGER NOT NULL, "
                    + "o_carrier_id INTEGER, o_entry_d TIMESTAMP, PRIMARY KEY (o_w_id, o_d_id, o_id))",
            "CREATE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)",
            "CREATE TABLE order_line (ol_w_id INTEGER NOT NULL, ol_d_id INTEGER NOT NULL, ol_o_id INTEGER NOT NULL, "
                    + "ol_number INTEGER NOT NULL, ol_i_id INTEGER NOT NULL, ol_supply_w_id INTEGER NOT NULL, "
                    + "ol_quantity INTEGER NOT NULL, ol_amount BIGINT NOT NULL, ol_delivery_d TIMESTAMP, "
                    + "ol_dist_info VARCHAR(24), PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number))",
            "CREATE TABLE item (i_id INTEGER NOT NULL, i_im_id INTEGER NOT NULL, i_price BIGINT NOT NULL, "
                    + "i_name VARCHAR(24), i_data VARCHAR(50), PRIMARY KEY (i_id))",
            "CREATE TABLE stock (s_w_id INTEGER NOT NULL, s_i_id INTEGER NOT NULL, s_quantity INTEGER NOT NULL, "
                    + "s_ytd BIGINT NOT NULL, s_order_cnt INTEGER NOT NULL, s_remote_cnt INTEGER NOT NULL, "
                    + "s_dist_01 VARCHAR(24), s_dist_02 VARCHAR(24), s_dist_03 VARCHAR(24), s_dist_04 VARCHAR(24), "
                    + "s_dist_05 VARCHAR(24), s_dist_06 VARCHAR(24), s_dist_07 VARCHAR(24), s_dist_08 VARCHAR(24), "
                    + "s_dist_09 VARCHAR(24), s_dist_10 VARCHAR(24), s_data VARCHAR(50), "
                    + "PRIMARY KEY (s_w_id, s_i_id))");

    /** w_ytd and d_ytd at load, in cents (TPC-C: 300,000.00 and 30,000.00). */
    static final long WAREHOUSE_YTD = 30_000_000L;
    static final long DISTRICT_YTD = 3_000_000L;

    private TpccSchema() {
    }

    /** Drops what an earlier run left (a PostgreSQL cluster outlives a run) and creates the tables. */
    public static void create(final Connection c) throws SQLException {
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
            for (String t : TABLES) {
                s.execute("DROP TABLE IF EXISTS " + t);
            }
            for (String ddl : DDL) {
                s.execute(ddl);
            }
        }
    }

    /** Drops the tables (PostgreSQL's cluster is shared with the caller's next run). */
    public static void drop(final Connection c) throws SQLException {
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
            for (String t : TABLES) {
                s.execute("DROP TABLE IF EXISTS " + t);
            }
        }
    }

    /** Fills the tables for {@code scale}, {@code batch} rows per INSERT batch and transaction; returns the rows. */
    public static long load(final Connection c, final TpccScale scale, final int batch) throws SQLException {
        c.setAutoCommit(false);
        final TpccRandom r = new TpccRandom(42);
        final Timestamp now = new Timestamp(System.currentTimeMillis());
        final Loader l = new Loader(c, batch);
        try (PreparedStatement item = c.prepareStatement("INSERT INTO item (i_id, i_im_id, i_price, i_name, i_data) "
                + "VALUES (?, ?, ?, ?, ?)")) {
            for (int i = 1; i <= scale.items(); i++) {
                item.setInt(1, i);
                item.setInt(2, r.uniform(1, 10_000));
                item.setLong(3, r.uniform(100, 10_000));
                item.setString(4, r.astring(14, 24));
                item.setString(5, r.data());
                l.add(item);
            }
            l.flush(item);
        }
        for (int w = 1; w <= scale.warehouses(); w++) {
            loadWarehouse(c, l, r, scale, w, now);
        }
        return l.rows;
    }

    private static void loadWarehouse(final Connection c, final Loader l, final TpccRandom r, final TpccScale scale,
                                      final int w, final Timestamp now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO warehouse (w_id, w_ytd, w_tax, w_name, w_street_1, "
                + "w_street_2, w_city, w_state, w_zip) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            ps.setInt(1, w);
            ps.setLong(2, WAREHOUSE_YTD);
            ps.setInt(3, r.uniform(0, 2000));
            address(ps, 4, r);
            l.add(ps);
            l.flush(ps);
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO stock (s_w_id, s_i_id, s_quantity, s_ytd, "
                + "s_order_cnt, s_remote_cnt, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, "
                + "s_dist_07, s_dist_08, s_dist_09, s_dist_10, s_data) "
                + "VALUES (?, ?, ?, 0, 0, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (int i = 1; i <= scale.items(); i++) {
                ps.setInt(1, w);
                ps.setInt(2, i);
                ps.setInt(3, r.uniform(10, 100));
                for (int d = 0; d < 10; d++) {
                    ps.setString(4 + d, r.astring(24, 24));
                }
                ps.setString(14, r.data());
                l.add(ps);
            }
            l.flush(ps);
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO district (d_w_id, d_id, d_ytd, d_next_o_id, d_tax, "
                + "d_name, d_street_1, d_street_2, d_city, d_state, d_zip) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (int d = 1; d <= TpccScale.DISTRICTS; d++) {
                ps.setInt(1, w);
                ps.setInt(2, d);
                ps.setLong(3, DISTRICT_YTD);
                ps.setInt(4, scale.ordersPerDistrict() + 1);
                ps.setInt(5, r.uniform(0, 2000));
                address(ps, 6, r);
                l.add(ps);
            }
            l.flush(ps);
        }
        try (PreparedStatement cust = c.prepareStatement("INSERT INTO customer (c_w_id, c_d_id, c_id, c_balance, "
                + "c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_discount, c_credit_lim, c_first, c_middle, c_last, "
                + "c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_data) "
                + "VALUES (?, ?, ?, -1000, 1000, 1, 0, ?, 5000000, ?, 'OE', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
             PreparedStatement hist = c.prepareStatement("INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, "
                     + "h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, 1000, ?)")) {
            for (int d = 1; d <= TpccScale.DISTRICTS; d++) {
                for (int id = 1; id <= scale.customersPerDistrict(); id++) {
                    cust.setInt(1, w);
                    cust.setInt(2, d);
                    cust.setInt(3, id);
                    cust.setInt(4, r.uniform(0, 5000));
                    cust.setString(5, r.astring(8, 16));
                    // the first 1,000 customers take name numbers 0..999 in turn (TPC-C: customer id - 1)
                    cust.setString(6, TpccRandom.lastName((id - 1) % 1000));
                    cust.setString(7, r.astring(10, 20));
                    cust.setString(8, r.astring(10, 20));
                    cust.setString(9, r.astring(10, 20));
                    cust.setString(10, r.astring(2, 2));
                    cust.setString(11, r.zip());
                    cust.setString(12, r.nstring(16, 16));
                    cust.setTimestamp(13, now);
                    cust.setString(14, r.percent(10) ? "BC" : "GC");
                    cust.setString(15, r.astring(300, 500));
                    l.add(cust);
                    hist.setInt(1, id);
                    hist.setInt(2, d);
                    hist.setInt(3, w);
                    hist.setInt(4, d);
                    hist.setInt(5, w);
                    hist.setTimestamp(6, now);
                    hist.setString(7, r.astring(12, 24));
                    hist.addBatch();
                }
                l.flush(cust);
                hist.executeBatch();
                c.commit();
                l.rows += scale.customersPerDistrict();
            }
        }
        loadOrders(c, l, r, scale, w, now);
    }

    private static void loadOrders(final Connection c, final Loader l, final TpccRandom r, final TpccScale scale,
                                   final int w, final Timestamp now) throws SQLException {
        try (PreparedStatement order = c.prepareStatement("INSERT INTO orders (o_w_id, o_d_id, o_id, o_c_id, o_ol_cnt, "
                + "o_all_local, o_carrier_id, o_entry_d) VALUES (?, ?, ?, ?, ?, 1, ?, ?)");
             PreparedStatement line = c.prepareStatement("INSERT INTO order_line (ol_w_id, ol_d_id, ol_o_id, "
                     + "ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d, ol_dist_info) "
                     + "VALUES (?, ?, ?, ?, ?, ?, 5, ?, ?, ?)");
             PreparedStatement newOrder = c.prepareStatement("INSERT INTO new_order (no_w_id, no_d_id, no_o_id) "
                     + "VALUES (?, ?, ?)")) {
            final int orders = scale.ordersPerDistrict();
            for (int d = 1; d <= TpccScale.DISTRICTS; d++) {
                // o_c_id: a random permutation of the customer ids
                final int[] perm = new int[orders];
                for (int i = 0; i < orders; i++) {
                    perm[i] = i % scale.customersPerDistrict() + 1;
                }
                for (int i = orders - 1; i > 0; i--) {
                    final int j = r.uniform(0, i);
                    final int t = perm[i];
                    perm[i] = perm[j];
                    perm[j] = t;
                }
                for (int o = 1; o <= orders; o++) {
                    final boolean delivered = o < scale.firstNewOrder();
                    final int lines = r.uniform(5, 15);
                    order.setInt(1, w);
                    order.setInt(2, d);
                    order.setInt(3, o);
                    order.setInt(4, perm[o - 1]);
                    order.setInt(5, lines);
                    if (delivered) {
                        order.setInt(6, r.uniform(1, 10));
                    } else {
                        order.setNull(6, Types.INTEGER);
                    }
                    order.setTimestamp(7, now);
                    order.addBatch();
                    for (int n = 1; n <= lines; n++) {
                        line.setInt(1, w);
                        line.setInt(2, d);
                        line.setInt(3, o);
                        line.setInt(4, n);
                        line.setInt(5, r.uniform(1, scale.items()));
                        line.setInt(6, w);
                        line.setLong(7, delivered ? 0 : r.uniform(1, 999_999));
                        if (delivered) {
                            line.setTimestamp(8, now);
                        } else {
                            line.setNull(8, Types.TIMESTAMP);
                        }
                        line.setString(9, r.astring(24, 24));
                        line.addBatch();
                        l.rows++;
                    }
                    if (!delivered) {
                        newOrder.setInt(1, w);
                        newOrder.setInt(2, d);
                        newOrder.setInt(3, o);
                        newOrder.addBatch();
                        l.rows++;
                    }
                    l.rows++;
                    if (o % 50 == 0 || o == orders) {
                        order.executeBatch();
                        line.executeBatch();
                        newOrder.executeBatch();
                        c.commit();
                    }
                }
            }
        }
    }

    /** name, street 1 and 2, city, state, zip from parameter {@code at} on. */
    private static void address(final PreparedStatement ps, final int at, final TpccRandom r) throws SQLException {
        ps.setString(at, r.astring(6, 10));
        ps.setString(at + 1, r.astring(10, 20));
        ps.setString(at + 2, r.astring(10, 20));
        ps.setString(at + 3, r.astring(10, 20));
        ps.setString(at + 4, r.astring(2, 2));
        ps.setString(at + 5, r.zip());
    }

    /** Adds rows to a statement's batch and commits every {@code batch} rows. */
    private static final class Loader {
        private final Connection c;
        private final int batch;
        private int pending;
        long rows;

        Loader(final Connection c, final int batch) {
            this.c = c;
            this.batch = batch;
        }

        void add(final PreparedStatement ps) throws SQLException {
            ps.addBatch();
            rows++;
            if (++pending >= batch) {
                flush(ps);
            }
        }

        void flush(final PreparedStatement ps) throws SQLException {
            if (pending > 0) {
                ps.executeBatch();
                c.commit();
                pending = 0;
            }
        }
    }
}
