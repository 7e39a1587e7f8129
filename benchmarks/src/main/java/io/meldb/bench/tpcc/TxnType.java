package io.meldb.bench.tpcc;

/** TPC-C's five transactions and their share of the standard mix (TPC-C 5.11 clause 5.2.3), in percent. */
public enum TxnType {
    NEW_ORDER("new-order", 45),
    PAYMENT("payment", 43),
    ORDER_STATUS("order-status", 4),
    DELIVERY("delivery", 4),
    STOCK_LEVEL("stock-level", 4);

    private static final TxnType[] ALL = values();

    final String label;
    final int percent;

    TxnType(final String label, final int percent) {
        this.label = label;
        this.percent = percent;
    }

    /** The type for a draw {@code p} uniform in [0, 100): the mix's cumulative shares. */
    static TxnType pick(final int p) {
        int acc = 0;
        for (TxnType t : ALL) {
            acc += t.percent;
            if (p < acc) {
                return t;
            }
        }
        return STOCK_LEVEL;
    }

    /** Whether the type only reads (run on the terminal's read-only connection). */
    boolean readOnly() {
        return this == ORDER_STATUS || this == STOCK_LEVEL;
    }

    public String label() {
        return label;
    }
}
