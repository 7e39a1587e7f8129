package io.meldb.core;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A single-replica test harness: executes transactions on retained states and melds them in log order. */
final class MeldHarness implements AutoCloseable {
    final Arena exec = new Arena();
    final NodeDirectory directory = new NodeDirectory();
    final MeldPipeline pipeline;
    final IntentionAdopter adopter;
    final List<Boolean> decisions = new ArrayList<>();
    long nextCsn = 1;

    MeldHarness(final MeldConfig config) {
        pipeline = new MeldPipeline(config, directory);
        adopter = new IntentionAdopter(exec, directory);
    }

    MeldHarness() {
        this(MeldConfig.FINAL_ONLY);
    }

    static byte[] b(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String s(final byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    Transaction begin(final long snapshotCsn, final Isolation isolation) {
        return new Transaction(exec, pipeline.state(snapshotCsn), isolation);
    }

    Transaction begin(final Isolation isolation) {
        return new Transaction(exec, pipeline.lcs(), isolation);
    }

    /** Appends the transaction's intention and returns its CSN (the decision arrives via {@link #decided}). */
    long append(final Transaction txn) {
        final long csn = nextCsn++;
        pipeline.submit(adopter.adopt(txn, csn, 0, new Intention()), (c, committed) -> {
            while (decisions.size() < c) {
                decisions.add(null);
            }
            decisions.set((int) c - 1, committed);
        });
        return csn;
    }

    /** Appends and returns whether it committed (without group meld the decision is immediate). */
    boolean commit(final Transaction txn) {
        final long csn = append(txn);
        pipeline.flush((c, committed) -> decisions.set((int) c - 1, committed));
        return decided(csn);
    }

    boolean decided(final long csn) {
        final Boolean d = decisions.get((int) csn - 1);
        if (d == null) {
            throw new IllegalStateException("csn " + csn + " not decided yet");
        }
        return d;
    }

    String read(final String key) {
        return s(new Transaction(exec, pipeline.lcs(), Isolation.SNAPSHOT).get(b(key)));
    }

    @Override
    public void close() {
        pipeline.close();
        exec.close();
    }
}
