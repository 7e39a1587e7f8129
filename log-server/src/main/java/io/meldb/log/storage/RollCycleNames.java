package io.meldb.log.storage;

import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.rollcycles.LargeRollCycles;
import net.openhft.chronicle.queue.rollcycles.SparseRollCycles;
import net.openhft.chronicle.queue.rollcycles.TestRollCycles;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Chronicle roll cycles (how much time one queue file of the Hyder II §5.1 log covers; trim, meld paper App. B, deletes whole files) by name, for the {@code --roll-cycle} flag ({@code FIVE_MINUTELY}, {@code TEST_SECONDLY}, ...). */
public final class RollCycleNames {
    private RollCycleNames() {
    }

    public static RollCycle parse(String name) {
        String n = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (RollCycle c : all()) {
            if (((Enum<?>) c).name().equals(n)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown roll cycle '" + name + "'; known: " + names());
    }

    public static String name(RollCycle cycle) {
        return cycle instanceof Enum<?> e ? e.name() : cycle.toString();
    }

    static List<RollCycle> all() {
        List<RollCycle> all = new ArrayList<>(List.of(RollCycles.values()));
        all.addAll(List.of(LargeRollCycles.values()));
        all.addAll(List.of(SparseRollCycles.values()));
        all.addAll(List.of(TestRollCycles.values()));
        return all;
    }

    static String names() {
        StringBuilder sb = new StringBuilder();
        for (RollCycle c : all()) {
            sb.append(sb.length() == 0 ? "" : ", ").append(((Enum<?>) c).name());
        }
        return sb.toString();
    }
}
