package dev.moroutine.examples.isolation;

import static dev.moroutine.Moroutine.mo;

import dev.moroutine.Mo0;
import dev.moroutine.Mo1;
import dev.moroutine.Mo3;
import dev.moroutine.shared.Int32Atomic;

/** The moroutines of the isolation example; the worker JVMs find them by their field names. */
public final class Risky {

    private Risky() {}

    /** Takes its whole JVM down: no finally block, no shutdown hook runs. */
    public static final Mo1<Integer, Integer> halt = mo(status -> {
        System.out.println("about to halt with status " + status);
        Runtime.getRuntime().halt(status);
        return status;
    });

    /** Never ends and ignores interrupts: on a thread, nothing could stop it. */
    public static final Mo0<Long> runaway = mo(() -> {
        long spins = 0;
        while (spins >= 0) {
            spins++;
        }
        return spins;
    });

    public static final Mo1<Integer, Integer> square = mo(x -> x * x);

    /**
     * Adds 1 to {@code counter} {@code times} times, then counts itself in {@code finished} and
     * wakes whoever waits on it (the parent JVM); returns the process it ran in.
     */
    public static final Mo3<Int32Atomic, Integer, Int32Atomic, Long> count = mo((counter, times, finished) -> {
        for (int i = 0; i < times; i++) {
            counter.add(1);
        }
        finished.add(1);
        finished.wake();
        return ProcessHandle.current().pid();
    });
}
