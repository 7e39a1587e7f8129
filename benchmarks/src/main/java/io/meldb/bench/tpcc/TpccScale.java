package io.meldb.bench.tpcc;

/**
 * The size of an order-entry database: TPC-C's shape (10 districts per warehouse, one stock row per item and
 * warehouse, one initial order per customer, the newest 30% of them undelivered) with the item and customer counts
 * as options, scaled down from TPC-C's 100,000 items and 3,000 customers per district so a load stays short on a
 * small machine.
 */
public record TpccScale(int warehouses, int items, int customersPerDistrict) {
    public static final int DISTRICTS = 10;

    public TpccScale {
        if (warehouses < 1 || items < 100 || customersPerDistrict < 10) {
            throw new IllegalArgumentException("need at least 1 warehouse, 100 items and 10 customers per district, got "
                    + warehouses + ", " + items + ", " + customersPerDistrict);
        }
    }

    /** Initial orders per district: one per customer, as TPC-C's 3,000. */
    public int ordersPerDistrict() {
        return customersPerDistrict;
    }

    /** The first initial order that is still undelivered (TPC-C: orders 2,101 to 3,000 of 3,000, the newest 30%). */
    public int firstNewOrder() {
        return ordersPerDistrict() - ordersPerDistrict() * 3 / 10 + 1;
    }
}
