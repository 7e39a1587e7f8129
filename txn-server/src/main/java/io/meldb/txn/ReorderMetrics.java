package io.meldb.txn;

import io.meldb.core.ReorderStats;
import io.meldb.txn.checkpoint.CommittedState;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The reorder window's meters (issue 21; seed 001 §3-4), registered only when the cluster's window is on: how many
 * windows closed and why, their mean size, where the aborts of window members came from (premeld, a conflict
 * before the window, a cycle inside it, final meld), and what log order would have aborted inside the same windows,
 * which is how an operator sees whether the window pays. Function meters over {@link ReorderStats}: the meld
 * thread counts in plain fields and does no metric work.
 */
final class ReorderMetrics {
    private ReorderMetrics() {
    }

    /** Registers the meters; {@code state} is held by the server for its life (meters keep weak references). */
    static void bind(final MeterRegistry registry, final CommittedState state) {
        counter(registry, "meldb.reorder.windows", "reorder windows closed and planned", state, ReorderStats::windows);
        counter(registry, "meldb.reorder.window.members", "intentions that were members of a closed window", state,
            ReorderStats::members);
        Gauge.builder("meldb.reorder.window.mean.size", state, s -> s.reorderTotals().meanSize())
            .description("mean members per closed window since the server started").register(registry);
        for (final ReorderStats.Close c : ReorderStats.Close.values()) {
            FunctionCounter.builder("meldb.reorder.windows.closed", state, s -> s.reorderTotals().closes(c))
                .tag("reason", c.name().toLowerCase(Locale.ROOT))
                .description("windows closed, by why they closed").register(registry);
        }
        abortClass(registry, state, "premeld", ReorderStats::premeldAborts);
        abortClass(registry, state, "before_window", ReorderStats::beforeWindowAborts);
        abortClass(registry, state, "in_window", ReorderStats::cycleAborts);
        abortClass(registry, state, "final_meld", ReorderStats::finalMeldAborts);
        counter(registry, "meldb.reorder.log.order.aborts", "in-window aborts log order would have had on the same"
            + " windows (compare with meldb.reorder.aborts{class=in_window})", state, ReorderStats::logOrderCycleAborts);
        counter(registry, "meldb.reorder.fvs.aborts", "in-window aborts the feedback vertex set chose, whether or not"
            + " the window fell back to log order", state, ReorderStats::feedbackVertexSetAborts);
        counter(registry, "meldb.reorder.log.order.fallbacks", "windows melded in log order because the plan was no"
            + " better", state, ReorderStats::logOrderFallbacks);
        counter(registry, "meldb.reorder.edges", "dependency edges between window members", state,
            ReorderStats::edges);
        counter(registry, "meldb.reorder.write.write.pairs", "member pairs writing a common key (a two-cycle no order"
            + " removes)", state, ReorderStats::writeWritePairs);
    }

    private static void abortClass(final MeterRegistry registry, final CommittedState state, final String cls,
                                   final ToDoubleFunction<ReorderStats> f) {
        FunctionCounter.builder("meldb.reorder.aborts", state, s -> f.applyAsDouble(s.reorderTotals()))
            .tag("class", cls).description("window members aborted, by where the conflict lay").register(registry);
    }

    private static void counter(final MeterRegistry registry, final String name, final String description,
                                final CommittedState state, final ToDoubleFunction<ReorderStats> f) {
        FunctionCounter.builder(name, state, s -> f.applyAsDouble(s.reorderTotals())).description(description)
            .register(registry);
    }
}
