package io.meldb.bench.tpcc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.Arrays;

/**
 * One TPC-C terminal bound to a home warehouse: the five transactions (TPC-C 5.11 clauses 2.4 to 2.8) as JDBC
 * statements prepared once on its two connections (read-write, and read-only for order-status and stock-level).
 * {@link #draw} picks a transaction's inputs and {@link #run} executes them, so a retry after a serialization failure
 * runs the same inputs again, as TPC-C requires. With {@code staticReadsApart}, payment reads the warehouse's and
 * district's name and address (columns no transaction writes) in a read-only piece before its read-write piece: a
 * chopping that is sound because that piece has no conflict edge at column granularity (seed 002 §3.1), and that
 * leaves the year-to-date updates without a read of their rows. With {@code lockDistrict} (H2 only), new-order reads
 * the district row FOR UPDATE: H2's SERIALIZABLE let two new-orders read the same d_next_o_id and the second fail
 * on the orders primary key (23505) instead of a serialization failure.
 */
final class Terminal implements AutoCloseable {
    /** What a run ended in besides an exception. */
    enum Outcome { COMMITTED, ROLLED_BACK }

    private final Connection rw;
    private final Connection ro;
    private final TpccScale scale;
    private final int home;
    private final int activeWarehouses;
    private final boolean staticReadsApart;
    private final TpccRandom r;

    // new-order
    private final PreparedStatement noCustomer;
    private final PreparedStatement noWarehouse;
    private final PreparedStatement noDistrict;
    private final PreparedStatement noDistrictUpdate;
    private final PreparedStatement noInsertOrder;
    private final PreparedStatement noInsertNewOrder;
    private final PreparedStatement noItem;
    private final PreparedStatement noStock;
    private final PreparedStatement noStockUpdate;
    private final PreparedStatement noInsertLine;
    // payment
    private final PreparedStatement payWarehouseYtd;
    private final PreparedStatement payWarehouse;
    private final PreparedStatement payWarehouseRo;
    private final PreparedStatement payDistrictYtd;
    private final PreparedStatement payDistrict;
    private final PreparedStatement payDistrictRo;
    private final PreparedStatement payCustomerByLast;
    private final PreparedStatement payCustomer;
    private final PreparedStatement payCustomerUpdate;
    private final PreparedStatement payCustomerUpdateData;
    private final PreparedStatement payHistory;
    // order-status (read-only connection)
    private final PreparedStatement osCustomerByLast;
    private final PreparedStatement osCustomer;
    private final PreparedStatement osLastOrder;
    private final PreparedStatement osLines;
    // delivery
    private final PreparedStatement dlOldest;
    private final PreparedStatement dlDeleteNewOrder;
    private final PreparedStatement dlOrder;
    private final PreparedStatement dlOrderUpdate;
    private final PreparedStatement dlLinesUpdate;
    private final PreparedStatement dlLinesSum;
    private final PreparedStatement dlCustomerUpdate;
    // stock-level (read-only connection)
    private final PreparedStatement slNextOrder;
    private final PreparedStatement slLowStock;

    // the drawn inputs of the current transaction
    private int district;
    private int customer;
    private String lastName;
    private int customerWarehouse;
    private int customerDistrict;
    private long amount;
    private int lines;
    private final int[] itemIds = new int[15];
    private final int[] supplyWarehouses = new int[15];
    private final int[] quantities = new int[15];
    private final long[] sortKeys = new long[15];
    private int carrier;
    private int threshold;

    Terminal(final Connection rw, final Connection ro, final TpccScale scale, final int home,
             final int activeWarehouses, final boolean staticReadsApart, final boolean lockDistrict, final long seed)
            throws SQLException {
        this.rw = rw;
        this.ro = ro;
        this.scale = scale;
        this.home = home;
        this.activeWarehouses = activeWarehouses;
        this.staticReadsApart = staticReadsApart;
        this.r = new TpccRandom(seed);
        noCustomer = rw.prepareStatement("SELECT c_discount, c_last, c_credit FROM customer "
                + "WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
        noWarehouse = rw.prepareStatement("SELECT w_tax FROM warehouse WHERE w_id = ?");
        noDistrict = rw.prepareStatement("SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?"
                + (lockDistrict ? " FOR UPDATE" : ""));
        // d_next_o_id + 1 rather than the value read + 1 (the same in a serializable transaction): on MeldDB it is an
        // increment, which with new-order's column read of d_tax and d_next_o_id does not conflict with payment's
        // increment of d_ytd (docs/perf/tpcc.md)
        noDistrictUpdate = rw.prepareStatement("UPDATE district SET d_next_o_id = d_next_o_id + 1 "
                + "WHERE d_w_id = ? AND d_id = ?");
        noInsertOrder = rw.prepareStatement("INSERT INTO orders (o_w_id, o_d_id, o_id, o_c_id, o_ol_cnt, "
                + "o_all_local, o_carrier_id, o_entry_d) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
        noInsertNewOrder = rw.prepareStatement("INSERT INTO new_order (no_w_id, no_d_id, no_o_id) VALUES (?, ?, ?)");
        noItem = rw.prepareStatement("SELECT i_price, i_name, i_data FROM item WHERE i_id = ?");
        noStock = rw.prepareStatement("SELECT s_quantity, s_ytd, s_order_cnt, s_remote_cnt, s_data, s_dist_01, "
                + "s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10 "
                + "FROM stock WHERE s_w_id = ? AND s_i_id = ?");
        noStockUpdate = rw.prepareStatement("UPDATE stock SET s_quantity = ?, s_ytd = ?, s_order_cnt = ?, "
                + "s_remote_cnt = ? WHERE s_w_id = ? AND s_i_id = ?");
        noInsertLine = rw.prepareStatement("INSERT INTO order_line (ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, "
                + "ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d, ol_dist_info) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        payWarehouseYtd = rw.prepareStatement("UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?");
        final String warehouseRead = "SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse "
                + "WHERE w_id = ?";
        payWarehouse = rw.prepareStatement(warehouseRead);
        payWarehouseRo = ro.prepareStatement(warehouseRead);
        payDistrictYtd = rw.prepareStatement("UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?");
        final String districtRead = "SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district "
                + "WHERE d_w_id = ? AND d_id = ?";
        payDistrict = rw.prepareStatement(districtRead);
        payDistrictRo = ro.prepareStatement(districtRead);
        final String byLast = "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? "
                + "ORDER BY c_first";
        payCustomerByLast = rw.prepareStatement(byLast);
        payCustomer = rw.prepareStatement("SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, "
                + "c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, c_ytd_payment, "
                + "c_payment_cnt, c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
        payCustomerUpdate = rw.prepareStatement("UPDATE customer SET c_balance = ?, c_ytd_payment = ?, "
                + "c_payment_cnt = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
        payCustomerUpdateData = rw.prepareStatement("UPDATE customer SET c_balance = ?, c_ytd_payment = ?, "
                + "c_payment_cnt = ?, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
        payHistory = rw.prepareStatement("INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, "
                + "h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
        osCustomerByLast = ro.prepareStatement(byLast);
        osCustomer = ro.prepareStatement("SELECT c_balance, c_first, c_middle, c_last FROM customer "
                + "WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
        osLastOrder = ro.prepareStatement("SELECT o_id, o_carrier_id, o_entry_d FROM orders "
                + "WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1");
        osLines = ro.prepareStatement("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d "
                + "FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?");
        dlOldest = rw.prepareStatement("SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? "
                + "ORDER BY no_o_id LIMIT 1");
        dlDeleteNewOrder = rw.prepareStatement("DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? "
                + "AND no_o_id = ?");
        dlOrder = rw.prepareStatement("SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?");
        dlOrderUpdate = rw.prepareStatement("UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? "
                + "AND o_id = ?");
        dlLinesUpdate = rw.prepareStatement("UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? "
                + "AND ol_d_id = ? AND ol_o_id = ?");
        dlLinesSum = rw.prepareStatement("SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? "
                + "AND ol_o_id = ?");
        dlCustomerUpdate = rw.prepareStatement("UPDATE customer SET c_balance = c_balance + ?, "
                + "c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
        slNextOrder = ro.prepareStatement("SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?");
        slLowStock = ro.prepareStatement("SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock "
                + "WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? "
                + "AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?");
    }

    /** Rolls back both connections after a failed attempt (payment's read-only piece may be the one that failed). */
    void rollbackAfterFailure() {
        for (Connection c : new Connection[] {rw, ro}) {
            try {
                c.rollback();
            } catch (SQLException | RuntimeException ignored) {
                // rolled back already or broken; the retry will tell
            }
        }
    }

    /** Draws the next transaction's type from the standard mix. */
    TxnType nextType() {
        return TxnType.pick(r.uniform(0, 99));
    }

    /** Draws the inputs of a {@code type} transaction (TPC-C's input generation, scaled ranges). */
    void draw(final TxnType type) {
        district = r.uniform(1, TpccScale.DISTRICTS);
        switch (type) {
            case NEW_ORDER -> drawNewOrder();
            case PAYMENT -> {
                if (activeWarehouses > 1 && r.percent(15)) {
                    customerWarehouse = otherWarehouse();
                    customerDistrict = r.uniform(1, TpccScale.DISTRICTS);
                } else {
                    customerWarehouse = home;
                    customerDistrict = district;
                }
                drawCustomer();
                amount = r.uniform(100, 500_000);
            }
            case ORDER_STATUS -> drawCustomer();
            case DELIVERY -> carrier = r.uniform(1, 10);
            case STOCK_LEVEL -> threshold = r.uniform(10, 20);
            default -> throw new IllegalStateException(type.toString());
        }
    }

    private void drawCustomer() {
        if (r.percent(60)) {
            lastName = r.lastNameToFind(scale.customersPerDistrict());
            customer = 0;
        } else {
            lastName = null;
            customer = r.customerId(scale.customersPerDistrict());
        }
    }

    private void drawNewOrder() {
        customer = r.customerId(scale.customersPerDistrict());
        lines = r.uniform(5, 15);
        final boolean rollback = r.percent(1);
        for (int i = 0; i < lines; i++) {
            int item;
            boolean again;
            do {
                item = r.itemId(scale.items());
                again = false;
                for (int j = 0; j < i; j++) {
                    again |= itemIds[j] == item;
                }
            } while (again);
            itemIds[i] = item;
            supplyWarehouses[i] = activeWarehouses > 1 && r.percent(1) ? otherWarehouse() : home;
            quantities[i] = r.uniform(1, 10);
        }
        if (rollback) {
            itemIds[lines - 1] = scale.items() + 1; // an unused item: the order is rolled back (clause 2.4.2.3)
        }
        // in (supply warehouse, item) order, so lock-based engines take stock rows in one order and do not deadlock
        for (int i = 0; i < lines; i++) {
            sortKeys[i] = ((long) supplyWarehouses[i] << 40) | ((long) itemIds[i] << 8) | quantities[i];
        }
        Arrays.sort(sortKeys, 0, lines);
        for (int i = 0; i < lines; i++) {
            supplyWarehouses[i] = (int) (sortKeys[i] >>> 40);
            itemIds[i] = (int) ((sortKeys[i] >>> 8) & 0xFFFFFFFFL);
            quantities[i] = (int) (sortKeys[i] & 0xFF);
        }
    }

    private int otherWarehouse() {
        int w;
        do {
            w = r.uniform(1, activeWarehouses);
        } while (w == home);
        return w;
    }

    /** Runs the drawn inputs of {@code type} as one transaction up to its commit (or its rollback by the spec). */
    Outcome run(final TxnType type) throws SQLException {
        return switch (type) {
            case NEW_ORDER -> newOrder();
            case PAYMENT -> payment();
            case ORDER_STATUS -> orderStatus();
            case DELIVERY -> delivery();
            case STOCK_LEVEL -> stockLevel();
        };
    }

    private Outcome newOrder() throws SQLException {
        noInsertLine.clearBatch(); // what an attempt that rolled back or failed had added
        noWarehouse.setInt(1, home);
        try (ResultSet rs = noWarehouse.executeQuery()) {
            expectRow(rs, "warehouse", home);
            rs.getInt(1);
        }
        noDistrict.setInt(1, home);
        noDistrict.setInt(2, district);
        final int orderId;
        try (ResultSet rs = noDistrict.executeQuery()) {
            expectRow(rs, "district", district);
            rs.getInt(1);
            orderId = rs.getInt(2);
        }
        noDistrictUpdate.setInt(1, home);
        noDistrictUpdate.setInt(2, district);
        expectOne(noDistrictUpdate.executeUpdate(), "district update");
        noCustomer.setInt(1, home);
        noCustomer.setInt(2, district);
        noCustomer.setInt(3, customer);
        try (ResultSet rs = noCustomer.executeQuery()) {
            expectRow(rs, "customer", customer);
            rs.getInt(1);
        }
        boolean allLocal = true;
        for (int i = 0; i < lines; i++) {
            allLocal &= supplyWarehouses[i] == home;
        }
        final Timestamp now = new Timestamp(System.currentTimeMillis());
        noInsertOrder.setInt(1, home);
        noInsertOrder.setInt(2, district);
        noInsertOrder.setInt(3, orderId);
        noInsertOrder.setInt(4, customer);
        noInsertOrder.setInt(5, lines);
        noInsertOrder.setInt(6, allLocal ? 1 : 0);
        noInsertOrder.setNull(7, Types.INTEGER);
        noInsertOrder.setTimestamp(8, now);
        noInsertOrder.executeUpdate();
        noInsertNewOrder.setInt(1, home);
        noInsertNewOrder.setInt(2, district);
        noInsertNewOrder.setInt(3, orderId);
        noInsertNewOrder.executeUpdate();
        for (int i = 0; i < lines; i++) {
            final int item = itemIds[i];
            noItem.setInt(1, item);
            final long price;
            try (ResultSet rs = noItem.executeQuery()) {
                if (!rs.next()) {
                    rw.rollback(); // the unused item of clause 2.4.2.3: a rollback the spec asks for
                    return Outcome.ROLLED_BACK;
                }
                price = rs.getLong(1);
            }
            final int supply = supplyWarehouses[i];
            final int qty = quantities[i];
            noStock.setInt(1, supply);
            noStock.setInt(2, item);
            final int quantity;
            final long ytd;
            final int orderCnt;
            final int remoteCnt;
            final String distInfo;
            try (ResultSet rs = noStock.executeQuery()) {
                expectRow(rs, "stock", item);
                quantity = rs.getInt(1);
                ytd = rs.getLong(2);
                orderCnt = rs.getInt(3);
                remoteCnt = rs.getInt(4);
                distInfo = rs.getString(5 + district);
            }
            noStockUpdate.setInt(1, quantity >= qty + 10 ? quantity - qty : quantity - qty + 91);
            noStockUpdate.setLong(2, ytd + qty);
            noStockUpdate.setInt(3, orderCnt + 1);
            noStockUpdate.setInt(4, remoteCnt + (supply == home ? 0 : 1));
            noStockUpdate.setInt(5, supply);
            noStockUpdate.setInt(6, item);
            expectOne(noStockUpdate.executeUpdate(), "stock update");
            noInsertLine.setInt(1, home);
            noInsertLine.setInt(2, district);
            noInsertLine.setInt(3, orderId);
            noInsertLine.setInt(4, i + 1);
            noInsertLine.setInt(5, item);
            noInsertLine.setInt(6, supply);
            noInsertLine.setInt(7, qty);
            noInsertLine.setLong(8, qty * price);
            noInsertLine.setNull(9, Types.TIMESTAMP);
            noInsertLine.setString(10, distInfo);
            noInsertLine.addBatch();
        }
        noInsertLine.executeBatch();
        rw.commit();
        return Outcome.COMMITTED;
    }

    private Outcome payment() throws SQLException {
        if (staticReadsApart) {
            readStatic(payWarehouseRo, payDistrictRo);
            ro.commit();
        }
        payWarehouseYtd.setLong(1, amount);
        payWarehouseYtd.setInt(2, home);
        expectOne(payWarehouseYtd.executeUpdate(), "warehouse update");
        payDistrictYtd.setLong(1, amount);
        payDistrictYtd.setInt(2, home);
        payDistrictYtd.setInt(3, district);
        expectOne(payDistrictYtd.executeUpdate(), "district update");
        if (!staticReadsApart) {
            readStatic(payWarehouse, payDistrict);
        }
        final int id = customer != 0 ? customer
                : customerByLastName(payCustomerByLast, customerWarehouse, customerDistrict, lastName);
        payCustomer.setInt(1, customerWarehouse);
        payCustomer.setInt(2, customerDistrict);
        payCustomer.setInt(3, id);
        final long balance;
        final long ytdPayment;
        final int paymentCnt;
        final String credit;
        final String data;
        try (ResultSet rs = payCustomer.executeQuery()) {
            expectRow(rs, "customer", id);
            credit = rs.getString(11);
            balance = rs.getLong(14);
            ytdPayment = rs.getLong(15);
            paymentCnt = rs.getInt(16);
            data = rs.getString(17);
        }
        final PreparedStatement update = "BC".equals(credit) ? payCustomerUpdateData : payCustomerUpdate;
        update.setLong(1, balance - amount);
        update.setLong(2, ytdPayment + amount);
        update.setInt(3, paymentCnt + 1);
        int p = 4;
        if (update == payCustomerUpdateData) {
            final String entry = id + " " + customerDistrict + " " + customerWarehouse + " " + district + " " + home
                    + " " + amount + " | ";
            final String all = entry + (data == null ? "" : data);
            update.setString(p++, all.length() > 500 ? all.substring(0, 500) : all);
        }
        update.setInt(p++, customerWarehouse);
        update.setInt(p++, customerDistrict);
        update.setInt(p, id);
        expectOne(update.executeUpdate(), "customer update");
        payHistory.setInt(1, id);
        payHistory.setInt(2, customerDistrict);
        payHistory.setInt(3, customerWarehouse);
        payHistory.setInt(4, district);
        payHistory.setInt(5, home);
        payHistory.setTimestamp(6, new Timestamp(System.currentTimeMillis()));
        payHistory.setLong(7, amount);
        payHistory.setString(8, "payment " + district);
        payHistory.executeUpdate();
        rw.commit();
        return Outcome.COMMITTED;
    }

    private void readStatic(final PreparedStatement warehouse, final PreparedStatement districtRead)
            throws SQLException {
        warehouse.setInt(1, home);
        try (ResultSet rs = warehouse.executeQuery()) {
            expectRow(rs, "warehouse", home);
            rs.getString(1);
        }
        districtRead.setInt(1, home);
        districtRead.setInt(2, district);
        try (ResultSet rs = districtRead.executeQuery()) {
            expectRow(rs, "district", district);
            rs.getString(1);
        }
    }

    /** The customer in the middle (position n/2 rounded up) of those with the last name, by first name. */
    private static int customerByLastName(final PreparedStatement ps, final int w, final int d, final String last)
            throws SQLException {
        ps.setInt(1, w);
        ps.setInt(2, d);
        ps.setString(3, last);
        int[] ids = new int[8];
        int n = 0;
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                if (n == ids.length) {
                    ids = Arrays.copyOf(ids, n * 2);
                }
                ids[n++] = rs.getInt(1);
            }
        }
        if (n == 0) {
            throw new IllegalStateException("no customer named " + last + " in district " + d + " of warehouse " + w);
        }
        return ids[(n + 1) / 2 - 1];
    }

    private Outcome orderStatus() throws SQLException {
        final int id = customer != 0 ? customer : customerByLastName(osCustomerByLast, home, district, lastName);
        osCustomer.setInt(1, home);
        osCustomer.setInt(2, district);
        osCustomer.setInt(3, id);
        try (ResultSet rs = osCustomer.executeQuery()) {
            expectRow(rs, "customer", id);
            rs.getLong(1);
        }
        osLastOrder.setInt(1, home);
        osLastOrder.setInt(2, district);
        osLastOrder.setInt(3, id);
        int orderId = 0;
        try (ResultSet rs = osLastOrder.executeQuery()) {
            if (rs.next()) {
                orderId = rs.getInt(1);
            }
        }
        if (orderId != 0) {
            osLines.setInt(1, home);
            osLines.setInt(2, district);
            osLines.setInt(3, orderId);
            try (ResultSet rs = osLines.executeQuery()) {
                while (rs.next()) {
                    rs.getLong(4);
                }
            }
        }
        ro.commit();
        return Outcome.COMMITTED;
    }

    private Outcome delivery() throws SQLException {
        final Timestamp now = new Timestamp(System.currentTimeMillis());
        for (int d = 1; d <= TpccScale.DISTRICTS; d++) {
            dlOldest.setInt(1, home);
            dlOldest.setInt(2, d);
            final int orderId;
            try (ResultSet rs = dlOldest.executeQuery()) {
                if (!rs.next()) {
                    continue; // no undelivered order in this district: skipped, as clause 2.7.4.2 allows
                }
                orderId = rs.getInt(1);
            }
            dlDeleteNewOrder.setInt(1, home);
            dlDeleteNewOrder.setInt(2, d);
            dlDeleteNewOrder.setInt(3, orderId);
            expectOne(dlDeleteNewOrder.executeUpdate(), "new_order delete");
            dlOrder.setInt(1, home);
            dlOrder.setInt(2, d);
            dlOrder.setInt(3, orderId);
            final int customerId;
            try (ResultSet rs = dlOrder.executeQuery()) {
                expectRow(rs, "order", orderId);
                customerId = rs.getInt(1);
            }
            dlOrderUpdate.setInt(1, carrier);
            dlOrderUpdate.setInt(2, home);
            dlOrderUpdate.setInt(3, d);
            dlOrderUpdate.setInt(4, orderId);
            expectOne(dlOrderUpdate.executeUpdate(), "order update");
            dlLinesUpdate.setTimestamp(1, now);
            dlLinesUpdate.setInt(2, home);
            dlLinesUpdate.setInt(3, d);
            dlLinesUpdate.setInt(4, orderId);
            dlLinesUpdate.executeUpdate();
            dlLinesSum.setInt(1, home);
            dlLinesSum.setInt(2, d);
            dlLinesSum.setInt(3, orderId);
            final long total;
            try (ResultSet rs = dlLinesSum.executeQuery()) {
                rs.next();
                total = rs.getLong(1);
            }
            dlCustomerUpdate.setLong(1, total);
            dlCustomerUpdate.setInt(2, home);
            dlCustomerUpdate.setInt(3, d);
            dlCustomerUpdate.setInt(4, customerId);
            expectOne(dlCustomerUpdate.executeUpdate(), "customer update");
        }
        rw.commit();
        return Outcome.COMMITTED;
    }

    private Outcome stockLevel() throws SQLException {
        slNextOrder.setInt(1, home);
        slNextOrder.setInt(2, district);
        final int next;
        try (ResultSet rs = slNextOrder.executeQuery()) {
            expectRow(rs, "district", district);
            next = rs.getInt(1);
        }
        slLowStock.setInt(1, home);
        slLowStock.setInt(2, district);
        slLowStock.setInt(3, next);
        slLowStock.setInt(4, next - 20);
        slLowStock.setInt(5, home);
        slLowStock.setInt(6, threshold);
        try (ResultSet rs = slLowStock.executeQuery()) {
            rs.next();
            rs.getInt(1);
        }
        ro.commit();
        return Outcome.COMMITTED;
    }

    private static void expectRow(final ResultSet rs, final String what, final int id) throws SQLException {
        if (!rs.next()) {
            throw new IllegalStateException(what + " " + id + " not found");
        }
    }

    private static void expectOne(final int n, final String what) {
        if (n != 1) {
            throw new IllegalStateException(what + " changed " + n + " rows");
        }
    }

    @Override
    public void close() throws SQLException {
        try (rw; ro) {
            rw.rollback();
        }
    }
}
