package io.meldb.wire;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Command-line flags of MeldDB's server commands: each flag has an environment variable and a default;
 * {@code --name value} or {@code --name=value} overrides the variable, which overrides the default.
 * A flag table row is {flag, environment variable, default (or null), help}.
 */
public final class CommandFlags {
    private CommandFlags() {
    }

    /** Flags override environment variables, which override defaults; {@code null} means --help. */
    public static Map<String, String> parse(String[][] flags, String[] args) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String[] f : flags) {
            String env = System.getenv(f[1]);
            values.put(f[0], env != null && !env.isEmpty() ? env : f[2]);
        }
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                return null;
            }
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument '" + a + "'");
            }
            String name = a.substring(2);
            String value;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (!values.containsKey(name)) {
                throw new IllegalArgumentException("unknown flag --" + name);
            } else if (isBoolean(flags, name) && (i + 1 >= args.length || args[i + 1].startsWith("--"))) {
                // a boolean flag alone turns it on
                value = "true";
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new IllegalArgumentException("flag --" + name + " needs a value");
            }
            if (!values.containsKey(name)) {
                throw new IllegalArgumentException("unknown flag --" + name);
            }
            values.put(name, value);
        }
        return values;
    }

    public static int intValue(Map<String, String> v, String name) {
        try {
            return Integer.parseInt(v.get(name).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be an integer, got '" + v.get(name) + "'");
        }
    }

    private static boolean isBoolean(String[][] flags, String name) {
        for (String[] f : flags) {
            if (f[0].equals(name)) {
                return "true".equals(f[2]) || "false".equals(f[2]);
            }
        }
        return false;
    }

    /**
     * A flag table for a tool without environment variables: rows {flag, default, help} become
     * {flag, PREFIX_FLAG, default, help}.
     */
    public static String[][] withEnvironment(String prefix, String[][] rows) {
        String[][] out = new String[rows.length][];
        for (int i = 0; i < rows.length; i++) {
            out[i] = new String[] {rows[i][0], prefix + rows[i][0].toUpperCase(Locale.ROOT).replace('-', '_'),
                rows[i][1], rows[i][2]};
        }
        return out;
    }

    public static long longValue(Map<String, String> v, String name) {
        try {
            return Long.parseLong(v.get(name).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be an integer, got '" + v.get(name) + "'");
        }
    }

    /** A size in bytes, optionally with a 1024-based suffix: {@code 512m}, {@code 2g}, {@code 65536}. */
    public static long sizeValue(Map<String, String> v, String name) {
        String s = v.get(name).trim().toLowerCase(Locale.ROOT);
        int shift = 0;
        if (!s.isEmpty()) {
            int unit = "kmgt".indexOf(s.charAt(s.length() - 1));
            if (unit >= 0) {
                shift = 10 * (unit + 1);
                s = s.substring(0, s.length() - 1);
            }
        }
        try {
            long n = Long.parseLong(s);
            if (n < 0 || (shift > 0 && n > (Long.MAX_VALUE >> shift))) {
                throw new NumberFormatException();
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a size in bytes, optionally with k, m, g or t "
                    + "(1024-based), got '" + v.get(name) + "'");
        }
    }

    public static boolean booleanValue(Map<String, String> v, String name) {
        String s = v.get(name).trim().toLowerCase(Locale.ROOT);
        if (!s.equals("true") && !s.equals("false")) {
            throw new IllegalArgumentException("--" + name + " must be true or false, got '" + v.get(name) + "'");
        }
        return Boolean.parseBoolean(s);
    }

    /** Prints the usage line(s) and one line per flag. */
    public static void usage(PrintStream out, String header, String[][] flags) {
        out.println(header);
        for (String[] f : flags) {
            out.printf(Locale.ROOT, "  --%-20s %-28s %s%s%n", f[0], "(" + f[1] + ")", f[3],
                    f[2] == null ? "" : " [" + f[2] + "]");
        }
    }

    /**
     * Ends this process when the process that started it ends (for servers a local cluster launcher starts:
     * killing the launcher, even with SIGKILL, must not leave them running).
     */
    public static void exitWithParent() {
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> {
            System.err.println("parent process " + parent.pid() + " ended; stopping");
            System.exit(0);
        }));
    }

    /** Sets a system property unless the launcher already did. */
    public static void defaultProperty(String name, String value) {
        if (System.getProperty(name) == null) {
            System.setProperty(name, value);
        }
    }
}
