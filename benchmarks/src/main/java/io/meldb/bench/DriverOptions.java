package io.meldb.bench;

import io.meldb.wire.CommandFlags;

import java.util.Map;
import java.util.function.Consumer;

/**
 * Command-line handling shared by the load drivers ({@link YcsbDriver}, {@link SoakDriver}): flags through
 * {@link CommandFlags} (each also settable as {@code PREFIX_FLAG} in the environment), quiet engine logging, usage on
 * {@code --help}, and a one-line error with exit status 2 on a bad flag.
 */
final class DriverOptions {
    private DriverOptions() {
    }

    /**
     * The flags {@code args} sets over the defaults of {@code rows} (and the environment), checked by
     * {@code validate}, without running anything or exiting; null for {@code --help}. A bad flag or value is an
     * {@link IllegalArgumentException}. The drivers' {@code parse} methods, which BenchmarkCommandsTest calls, use it.
     */
    static Map<String, String> parse(final String envPrefix, final String[][] rows, final String[] args,
                                     final Consumer<Map<String, String>> validate) {
        final Map<String, String> opts = CommandFlags.parse(CommandFlags.withEnvironment(envPrefix, rows), args);
        if (opts != null) {
            validate.accept(opts);
        }
        return opts;
    }

    /**
     * The parsed flags, or null after printing the usage for {@code --help}. Exits the JVM with status 2 when a flag
     * is bad or {@code validate} rejects the values.
     */
    static Map<String, String> parseOrExit(final String tool, final String usage, final String envPrefix,
                                           final String[][] rows, final String[] args,
                                           final Consumer<Map<String, String>> validate) {
        CommandFlags.defaultProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        final String[][] flags = CommandFlags.withEnvironment(envPrefix, rows);
        try {
            final Map<String, String> opts = CommandFlags.parse(flags, args);
            if (opts == null) {
                CommandFlags.usage(System.out, usage, flags);
                return null;
            }
            validate.accept(opts);
            return opts;
        } catch (IllegalArgumentException e) {
            System.err.println(tool + ": " + e.getMessage());
            CommandFlags.usage(System.err, usage, flags);
            System.exit(2);
            return null;
        }
    }

    /** An integer flag; {@code _} and {@code ,} may group digits (100_000, 100,000). */
    static int intValue(final Map<String, String> opts, final String name) {
        return intValue(name, opts.get(name));
    }

    /** {@code value} of flag {@code name} as an integer; {@code _} and {@code ,} may group digits. */
    static int intValue(final String name, final String value) {
        try {
            return Integer.parseInt(value.trim().replace("_", "").replace(",", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be an integer, got '" + value + "'");
        }
    }
}
