package io.meldb.txn;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Where one commit's round trip goes (Hyder II §5.1-5.3: append, log, reader, deserializer, meld, reply): a latency
 * histogram per hand-off of this process's own commits, from the moment its session appends the intention to the
 * moment the reply thread has answered it. Each phase is measured between two {@link System#nanoTime()} stamps
 * that the stages leave on the commit's future and its pipeline message; the stamps are only ever read here, never
 * by meld, so timing decides nothing. Recording allocates nothing (HdrHistogram {@link Recorder}s, safe for the
 * several threads that record); {@link #take()} reads and resets the interval.
 */
public final class CommitPathProfile {
    /** The hand-offs of one commit, in the order it crosses them. */
    public enum Phase {
        /** The session's call that frames the intention and hands its block to the log client. */
        APPEND_CALL("append call"),
        /** Append sent until the log acknowledged it (its position is known). */
        LOG_ACK("log ack"),
        /** Append sent until the log's subscription handed the block to this server's log intake. */
        DELIVERED("append to delivered"),
        /** The intake queued the block until the reader thread took it. */
        INTAKE_TO_READER("intake to reader"),
        /** The reader took the block until the intention was decoded (in line, or on a deserializer thread). */
        READER_TO_DECODED("reader to decoded"),
        /** Decoded until meld decided it (the meld thread's wake-up, premeld and final meld). */
        DECODED_TO_MELDED("decoded to melded"),
        /** Decided until the reply thread took it. */
        MELDED_TO_REPLY("melded to reply"),
        /**
         * The reply thread took it until its commit future was answered, the future's callbacks included (a front
         * end's hand-off to its I/O thread: when that thread takes the core, the reply thread's stamp comes late).
         */
        REPLY_TO_ANSWERED("reply to answered"),
        /** Append sent until the reply thread took the decision: the txn-server's share of the COMMIT round trip. */
        TOTAL("append to reply");

        private final String label;

        Phase(final String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** Longest phase tracked (a minute); a longer one is recorded as this. */
    private static final long HIGHEST_NANOS = 60_000_000_000L;
    private static final Phase[] PHASES = Phase.values();

    private final Recorder[] recorders = new Recorder[PHASES.length];

    public CommitPathProfile() {
        for (int i = 0; i < recorders.length; i++) {
            recorders[i] = new Recorder(HIGHEST_NANOS, 2);
        }
    }

    /** Records that {@code phase} took {@code nanos} (ignored if a stamp was missing, i.e. negative or absurd). */
    public void record(final Phase phase, final long nanos) {
        if (nanos < 0) {
            return;
        }
        recorders[phase.ordinal()].recordValue(Math.min(nanos, HIGHEST_NANOS));
    }

    /** Records {@code phase} as the time between two stamps, if both were taken (0 means not taken). */
    public void recordBetween(final Phase phase, final long fromNanos, final long toNanos) {
        if (fromNanos != 0 && toNanos != 0) {
            record(phase, toNanos - fromNanos);
        }
    }

    /** The phases recorded since the last call (or since start), in nanoseconds; resets them. */
    public Map<Phase, Histogram> take() {
        final Map<Phase, Histogram> out = new EnumMap<>(Phase.class);
        for (Phase p : PHASES) {
            out.put(p, recorders[p.ordinal()].getIntervalHistogram());
        }
        return out;
    }

    /** One line: each phase's p50 / p99 in µs, and the number of commits measured. */
    public static String describe(final Map<Phase, Histogram> phases) {
        final StringBuilder b = new StringBuilder();
        for (Map.Entry<Phase, Histogram> e : phases.entrySet()) {
            final Histogram h = e.getValue();
            if (h.getTotalCount() == 0) {
                continue;
            }
            if (b.length() > 0) {
                b.append(", ");
            }
            b.append(String.format(Locale.ROOT, "%s %.0f/%.0f", e.getKey().label(), h.getValueAtPercentile(50) / 1e3,
                h.getValueAtPercentile(99) / 1e3));
        }
        final Histogram total = phases.get(Phase.TOTAL);
        return "commit path p50/p99 µs (" + (total == null ? 0 : total.getTotalCount()) + " commits): " + b;
    }
}
