package io.meldb.core;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A runnable demo: executes concurrent transactions and melds them on one thread, through a {@link MeldPipeline}
 * configured from the command line, then prints the outcome and the meld statistics.
 *
 * <p>Like the meld benchmark (meld paper §8), concurrency is simulated: transaction CSN {@code c} executes on the
 * committed state {@code c - concurrency - 1}, so its conflict zone holds {@code concurrency} intentions. The
 * table of {@code --keys} keys (8-byte big-endian, spaced so inserts fit between them) is loaded as intention
 * CSN 1. Each transaction has {@code --txn-size} operations: a read of a random table key with probability
 * {@code --read-percent}, otherwise an insert of a fresh key with probability {@code --insert-percent}, else an
 * update of a random table key. A transaction that logs nothing (a read-only one under snapshot isolation)
 * commits at its snapshot without an intention, as in Hyder.
 *
 * <p>Run it with {@code bin/meld-demo [flags]}; {@code --help} lists the flags. The pipeline keeps every state,
 * so memory grows with {@code --txns}; the run prints the off-heap memory in use.
 */
public final class MeldDemo {
    private static final long KEY_SPACING = 1024;

    private static final String USAGE = String.join("\n",
        "usage: meld-demo [--name value]...",
        "  --keys N               keys in the table (default 10000)",
        "  --txns N               transactions to execute and meld (default 200000)",
        "  --concurrency N        intentions in each transaction's conflict zone (default 16)",
        "  --txn-size N           operations per transaction (default 4)",
        "  --read-percent P       share of operations that are reads, 0-100 (default 50)",
        "  --insert-percent P     share of the other operations that insert new keys, 0-100 (default 0)",
        "  --isolation I          serializable | snapshot (default serializable)",
        "  --premeld-threads N    premeld slots t, 0 = premeld off (default 0)",
        "  --premeld-distance N   premeld distance d >= 1: intention v premelds against state v-t*d-1 (default 1)",
        "  --group-meld B         true | false: meld adjacent intentions in pairs (default false)",
        "  --brute-force B        true | false: disable meld's grafting shortcuts (default false)",
        "  --seed N               random seed (default 1)",
        "  --help                 print this help");

    private MeldDemo() {
    }

    /** A command-line error: reported with the usage text and exit code 2. */
    private static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(final String message) {
            super(message, null, false, false);
        }
    }

    private static final class Options {
        int keys = 10_000;
        int txns = 200_000;
        int concurrency = 16;
        int txnSize = 4;
        int readPercent = 50;
        int insertPercent = 0;
        Isolation isolation = Isolation.SERIALIZABLE;
        int premeldThreads;
        int premeldDistance = 1;
        boolean groupMeld;
        boolean bruteForce;
        long seed = 1;
        boolean help;
    }

    public static void main(final String[] args) {
        final Options o;
        final MeldConfig config;
        try {
            o = parse(args);
            if (o.help) {
                System.out.println(USAGE);
                return;
            }
            try {
                config = new MeldConfig(o.premeldThreads, o.premeldDistance, o.groupMeld, o.bruteForce);
            } catch (final IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
        } catch (final UsageException e) {
            System.err.println("meld-demo: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        run(o, config);
    }

    private static Options parse(final String[] args) throws UsageException {
        final Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            final String name = args[i];
            if (name.equals("--help") || name.equals("-h")) {
                o.help = true;
                continue;
            }
            if (!name.startsWith("--")) {
                throw new UsageException("unexpected argument '" + name + "' (flags are --name value)");
            }
            if (i + 1 >= args.length) {
                throw new UsageException("flag " + name + " needs a value");
            }
            final String value = args[++i];
            switch (name) {
                case "--keys":
                    o.keys = intValue(name, value, 1, 1 << 22);
                    break;
                case "--txns":
                    o.txns = intValue(name, value, 0, 100_000_000);
                    break;
                case "--concurrency":
                    o.concurrency = intValue(name, value, 0, 1 << 20);
                    break;
                case "--txn-size":
                    o.txnSize = intValue(name, value, 1, 1 << 16);
                    break;
                case "--read-percent":
                    o.readPercent = intValue(name, value, 0, 100);
                    break;
                case "--insert-percent":
                    o.insertPercent = intValue(name, value, 0, 100);
                    break;
                case "--isolation":
                    o.isolation = isolationValue(value);
                    break;
                case "--premeld-threads":
                    o.premeldThreads = intValue(name, value, 0, 1024);
                    break;
                case "--premeld-distance":
                    o.premeldDistance = intValue(name, value, 1, 1 << 20);
                    break;
                case "--group-meld":
                    o.groupMeld = booleanValue(name, value);
                    break;
                case "--brute-force":
                    o.bruteForce = booleanValue(name, value);
                    break;
                case "--seed":
                    try {
                        o.seed = Long.parseLong(value);
                    } catch (final NumberFormatException e) {
                        throw new UsageException(name + " must be an integer, not '" + value + "'");
                    }
                    break;
                default:
                    throw new UsageException("unknown flag " + name);
            }
        }
        if (o.insertPercent > 0 && o.keys < 2) {
            throw new UsageException("inserts need --keys >= 2 (new keys go between table keys)");
        }
        return o;
    }

    private static int intValue(final String name, final String value, final int min, final int max)
        throws UsageException {
        final int v;
        try {
            v = Integer.parseInt(value.replace("_", ""));
        } catch (final NumberFormatException e) {
            throw new UsageException(name + " must be an integer, not '" + value + "'");
        }
        if (v < min || v > max) {
            throw new UsageException(name + " must be between " + min + " and " + max + ", not " + v);
        }
        return v;
    }

    private static boolean booleanValue(final String name, final String value) throws UsageException {
        switch (value.toLowerCase(Locale.ROOT)) {
            case "true":
                return true;
            case "false":
                return false;
            default:
                throw new UsageException(name + " must be true or false, not '" + value + "'");
        }
    }

    private static Isolation isolationValue(final String value) throws UsageException {
        switch (value.toLowerCase(Locale.ROOT)) {
            case "serializable":
                return Isolation.SERIALIZABLE;
            case "snapshot":
                return Isolation.SNAPSHOT;
            default:
                throw new UsageException("--isolation must be serializable or snapshot, not '" + value + "'");
        }
    }

    private static void run(final Options o, final MeldConfig config) {
        System.out.printf("meld-demo: keys=%d txns=%d concurrency=%d txn-size=%d read-percent=%d insert-percent=%d"
                + " isolation=%s premeld-threads=%d premeld-distance=%d group-meld=%b brute-force=%b seed=%d%n",
            o.keys, o.txns, o.concurrency, o.txnSize, o.readPercent, o.insertPercent,
            o.isolation.name().toLowerCase(Locale.ROOT), o.premeldThreads, o.premeldDistance, o.groupMeld,
            o.bruteForce, o.seed);
        final SplittableRandom random = new SplittableRandom(o.seed);
        final NodeDirectory directory = new NodeDirectory();
        final int[] decisions = new int[2];
        final MeldPipeline.DecisionListener listener = (csn, committed) -> decisions[committed ? 0 : 1]++;
        try (Arena arena = new Arena(); MeldPipeline pipeline = new MeldPipeline(config, directory)) {
            final IntentionAdopter adopter = new IntentionAdopter(arena, directory);

            // the table, as intention CSN 1
            final Transaction load = new Transaction(arena, pipeline.lcs(), Isolation.SERIALIZABLE);
            for (int i = 0; i < o.keys; i++) {
                load.put(key(i * KEY_SPACING), key(random.nextLong()));
            }
            pipeline.submit(adopter.adopt(load, 1, 0, new Intention()), listener);
            pipeline.flush(listener);
            if (decisions[0] != 1) {
                throw new IllegalStateException("the table did not commit");
            }
            decisions[0] = 0;
            final long loadedFinalMelds = pipeline.finalMelds();
            final long loadedNodes = pipeline.finalNodesVisited();
            final long loadedEphemerals = pipeline.ephemeralsCreated();

            final Set<Long> inserted = new HashSet<>();
            long csn = 1;
            int readOnly = 0;
            long meldNanos = 0;
            final long started = System.nanoTime();
            for (int t = 0; t < o.txns; t++) {
                final long next = csn + 1;
                final Snapshot snapshot = pipeline.state(Math.max(1, next - o.concurrency - 1));
                final Transaction txn = new Transaction(arena, snapshot, o.isolation);
                for (int op = 0; op < o.txnSize; op++) {
                    if (random.nextInt(100) < o.readPercent) {
                        txn.get(key(random.nextInt(o.keys) * KEY_SPACING));
                    } else if (random.nextInt(100) < o.insertPercent) {
                        long k;
                        do {
                            k = random.nextInt(o.keys - 1) * KEY_SPACING + 1 + random.nextInt((int) KEY_SPACING - 1);
                        } while (!inserted.add(k));
                        txn.put(key(k), key(random.nextLong()));
                    } else {
                        txn.put(key(random.nextInt(o.keys) * KEY_SPACING), key(random.nextLong()));
                    }
                }
                if (!Transaction.owned(txn.root())) {
                    readOnly++; // nothing to log: commits at its snapshot
                    continue;
                }
                final Intention intention = adopter.adopt(txn, next, 0, new Intention());
                csn = next;
                final long m = System.nanoTime();
                pipeline.submit(intention, listener);
                meldNanos += System.nanoTime() - m;
            }
            final long m = System.nanoTime();
            pipeline.flush(listener);
            meldNanos += System.nanoTime() - m;
            final double seconds = (System.nanoTime() - started) / 1e9;

            final long commits = decisions[0];
            final long aborts = decisions[1];
            final long decided = commits + aborts;
            final long finalMelds = pipeline.finalMelds() - loadedFinalMelds;
            final long nodes = pipeline.finalNodesVisited() - loadedNodes;
            final long ephemerals = pipeline.ephemeralsCreated() - loadedEphemerals;
            final long offHeap = (long) NodeMemory.segmentsInUse() * NodeMemory.SEGMENT_SIZE;
            System.out.printf("commits                      %,d%n", commits);
            System.out.printf("aborts                       %,d%n", aborts);
            System.out.printf("abort %%                      %.2f%n", decided == 0 ? 0.0 : 100.0 * aborts / decided);
            if (readOnly > 0) {
                System.out.printf("read-only, not logged        %,d%n", readOnly);
            }
            System.out.printf("melds/s                      %,.0f  (final decisions per second of wall time,"
                + " transaction execution included; %.2f s)%n", decided / seconds, seconds);
            System.out.printf("melds/s, pipeline only       %,.0f  (decisions per second spent in"
                + " MeldPipeline.submit/flush; %.2f s)%n", decided / (meldNanos / 1e9), meldNanos / 1e9);
            System.out.printf("nodes visited per final meld %.2f  (%,d final melds)%n",
                finalMelds == 0 ? 0.0 : (double) nodes / finalMelds, finalMelds);
            System.out.printf("ephemeral nodes per meld     %.2f  (all stages, per decided intention)%n",
                decided == 0 ? 0.0 : (double) ephemerals / decided);
            if (config.groupMeld()) {
                System.out.printf("groups formed / fell back    %,d / %,d%n", pipeline.groupsFormed(),
                    pipeline.groupsFallenBack());
            }
            System.out.printf("off-heap memory in use       %,d MiB  (%d segments of %d MiB)%n", offHeap >> 20,
                NodeMemory.segmentsInUse(), NodeMemory.SEGMENT_SIZE >> 20);
            System.out.printf("state hash                   %016x  (lcs csn %d)%n",
                StateHash.of(pipeline.lcs().root()), pipeline.lcsCsn());
        }
    }

    private static byte[] key(final long k) {
        final byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (k >>> (56 - 8 * i));
        }
        return b;
    }
}
