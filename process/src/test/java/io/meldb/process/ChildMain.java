package io.meldb.process;

/** A child process for ChildProcessTest: {@code ready <n>} then sleeps, or {@code exit <code>} prints and ends. */
public final class ChildMain {
    private ChildMain() {
    }

    public static void main(final String[] args) throws InterruptedException {
        if (args[0].equals("exit")) {
            System.out.println("ending with " + args[1]);
            System.exit(Integer.parseInt(args[1]));
        }
        System.out.println("starting");
        System.out.println("ready port=" + args[1]);
        Thread.sleep(600_000);
    }
}
