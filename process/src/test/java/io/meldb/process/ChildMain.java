package io.meldb.process;

/**
 * A child process for ChildProcessTest: {@code ready <n>} then sleeps, {@code exit <code>} prints and ends, or
 * {@code print <n>} prints its working directory, {@code $MELDB_CHILD_TEST} and n numbered lines, and ends.
 */
public final class ChildMain {
    private ChildMain() {
    }

    public static void main(final String[] args) throws InterruptedException {
        if (args[0].equals("exit")) {
            System.out.println("ending with " + args[1]);
            System.exit(Integer.parseInt(args[1]));
        }
        if (args[0].equals("print")) {
            System.out.println("dir=" + System.getProperty("user.dir") + " env=" + System.getenv("MELDB_CHILD_TEST"));
            for (int i = 1; i <= Integer.parseInt(args[1]); i++) {
                System.out.println("line " + i);
            }
            return;
        }
        System.out.println("starting");
        System.out.println("ready port=" + args[1]);
        Thread.sleep(600_000);
    }
}
