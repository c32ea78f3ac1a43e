package dev.moroutine.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The other process of the busy-machine mode: each burner is a separate JVM that keeps one core
 * busy (as {@code python3 -c "while True: pass"} would), so that the benchmarks meet a machine where
 * another program wants the CPU too. A burner ends when its parent closes its standard input, and so
 * also when the parent dies.
 */
public final class Burner implements AutoCloseable {

    @SuppressWarnings("unused") // written so that the spin loop has an effect
    private static volatile long sink;

    private final List<Process> processes = new ArrayList<>();

    private Burner() {}

    /**
     * Starts {@code cores} burners with this JVM's {@code java} and class path.
     *
     * @param cores how many cores to keep busy; 0 starts nothing
     * @return the running burners, to close when the measurement ends
     * @throws IOException if a burner cannot be started
     */
    public static Burner start(int cores) throws IOException {
        Burner burner = new Burner();
        String java = ProcessHandle.current().info().command().orElse("java");
        try {
            for (int i = 0; i < cores; i++) {
                burner.processes.add(new ProcessBuilder(java, "-Xmx32m", "-XX:+UseSerialGC", "-cp",
                        System.getProperty("java.class.path"), Burner.class.getName())
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start());
            }
        } catch (IOException e) {
            burner.close();
            throw e;
        }
        return burner;
    }

    /** Stops the burners and waits for them to end. */
    @Override
    public void close() {
        for (Process process : processes) {
            process.destroyForcibly();
        }
        for (Process process : processes) {
            process.onExit().join();
        }
    }

    /**
     * A burner's body: spins until its standard input ends.
     *
     * @param args none
     */
    public static void main(String[] args) {
        Thread.ofPlatform().daemon().start(() -> {
            for (long x = 1; ; ) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                if (x == 0) {
                    sink = x; // a store the JIT cannot prove dead keeps the loop's work
                }
            }
        });
        try {
            while (System.in.read() >= 0) {
                // nothing is ever written: EOF means the parent closed the pipe or died
            }
        } catch (IOException ignored) {
            // the parent is gone as well
        }
        System.exit(0);
    }
}
