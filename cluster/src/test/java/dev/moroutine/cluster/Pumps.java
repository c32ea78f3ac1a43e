package dev.moroutine.cluster;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** The caller's stream pumps (platform threads named {@code <worker>-stream-<seq>}), found among this JVM's live threads. */
final class Pumps {

    private Pumps() {}

    /** The pumps of a pool's workers: thread names {@code <pool>-worker-<n>-stream-<seq>}. */
    static String of(String pool) {
        return pool + "-worker-\\d+-stream-\\d+";
    }

    /** Every pump of every pool. */
    static final String ANY = ".*-stream-\\d+";

    /** The live pump threads whose name matches {@code regex}, with their stacks. */
    static Map<Thread, StackTraceElement[]> alive(String regex) {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> e.getKey().getName().matches(regex) && e.getKey().isAlive())
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    /** Each pump's name, state and the top of its stack; "none" if there is none. */
    static String describe(Map<Thread, StackTraceElement[]> pumps) {
        if (pumps.isEmpty()) {
            return "none";
        }
        return pumps.entrySet().stream().map(e -> e.getKey().getName() + " " + e.getKey().getState() + " at "
                + Arrays.toString(Arrays.copyOf(e.getValue(), Math.min(8, e.getValue().length))))
                .collect(Collectors.joining("; "));
    }

    /** Waits, with a deadline, until no pump matching {@code regex} is alive: "none", or those left, described. */
    static String awaitNone(String regex) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (;;) {
            Map<Thread, StackTraceElement[]> left = alive(regex);
            if (left.isEmpty()) {
                return "none";
            }
            if (System.nanoTime() > deadline) {
                return describe(left);
            }
            Thread.yield(); // look again until the deadline: a condition, not a sleep
        }
    }
}
