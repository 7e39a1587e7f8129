package io.meldb.bench.tpcc;

import java.util.Random;

/**
 * TPC-C's random inputs (TPC-C 5.11 clause 2.1.6 and 4.3): NURand, the syllable last names, random strings and the
 * "ORIGINAL" marker, over a seeded {@link Random} so a load is the same every time. The customer and item ranges are
 * the scaled ones of {@link TpccScale}: NURand's A constants stay TPC-C's, its range is the scaled one.
 */
public final class TpccRandom {
    private static final String[] SYLLABLES = {
        "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"};
    private static final char[] ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".toCharArray();

    private final Random random;
    /** NURand's run-time constants C for A = 255 (last names), 1023 (customer ids), 8191 (item ids). */
    private final int cLast;
    private final int cId;
    private final int cItem;

    public TpccRandom(final long seed) {
        this.random = new Random(seed);
        // the constants are drawn once per terminal here; TPC-C allows any C in range for a run
        this.cLast = random.nextInt(256);
        this.cId = random.nextInt(1024);
        this.cItem = random.nextInt(8192);
    }

    /** Uniform in [lo, hi]. */
    public int uniform(final int lo, final int hi) {
        return lo + random.nextInt(hi - lo + 1);
    }

    /** NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x. */
    public int nurand(final int a, final int x, final int y) {
        final int c = a == 255 ? cLast : a == 1023 ? cId : cItem;
        return (((uniform(0, a) | uniform(x, y)) + c) % (y - x + 1)) + x;
    }

    /** A customer id in [1, customers], skewed as TPC-C's NURand(1023). */
    public int customerId(final int customers) {
        return nurand(1023, 1, customers);
    }

    /** An item id in [1, items], skewed as TPC-C's NURand(8191). */
    public int itemId(final int items) {
        return nurand(8191, 1, items);
    }

    /** A last name to look up: NURand(255) over the name numbers the load gave out (0 .. min(999, customers - 1)). */
    public String lastNameToFind(final int customers) {
        return lastName(nurand(255, 0, Math.min(999, customers - 1)));
    }

    /** The last name of name number {@code n} in [0, 999]: three syllables by its digits. */
    public static String lastName(final int n) {
        return SYLLABLES[n / 100] + SYLLABLES[(n / 10) % 10] + SYLLABLES[n % 10];
    }

    /** A random alphanumeric string of length in [min, max]. */
    public String astring(final int min, final int max) {
        final int n = uniform(min, max);
        final char[] c = new char[n];
        for (int i = 0; i < n; i++) {
            c[i] = ALNUM[random.nextInt(ALNUM.length)];
        }
        return new String(c);
    }

    /** A random numeric string of length in [min, max]. */
    public String nstring(final int min, final int max) {
        final int n = uniform(min, max);
        final char[] c = new char[n];
        for (int i = 0; i < n; i++) {
            c[i] = (char) ('0' + random.nextInt(10));
        }
        return new String(c);
    }

    /** i_data / s_data: 26 to 50 characters, 10% of them with "ORIGINAL" at a random place. */
    public String data() {
        final String s = astring(26, 50);
        if (random.nextInt(10) != 0) {
            return s;
        }
        final int at = random.nextInt(s.length() - 8);
        return s.substring(0, at) + "ORIGINAL" + s.substring(at + 8);
    }

    /** A zip code: 4 random digits and "11111". */
    public String zip() {
        return nstring(4, 4) + "11111";
    }

    /** Percent chance: true with probability {@code p}%. */
    public boolean percent(final int p) {
        return random.nextInt(100) < p;
    }
}
