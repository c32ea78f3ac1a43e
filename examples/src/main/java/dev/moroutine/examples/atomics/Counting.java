package dev.moroutine.examples.atomics;

import static dev.moroutine.Moroutine.*;

import dev.moroutine.Mo3;
import dev.moroutine.shared.Int32;
import dev.moroutine.shared.Int32Atomic;

/** Moroutines that count into shared memory. */
public final class Counting {

    private Counting() {}

    /** Adds 1 to {@code counter} {@code n} times, then counts itself into {@code finished} and wakes whoever waits on it. */
    public static final Mo3<Int32Atomic, Integer, Int32Atomic, Integer> countUp = mo((counter, n, finished) -> {
        for (int i = 0; i < n; i++) {
            counter.add(1);
        }
        finished.add(1);
        finished.wake();
        return n;
    });

    /** The same without atomics: a separate load and store, so increments that race are lost. */
    public static final Mo3<Int32, Integer, Int32Atomic, Integer> countUpPlain = mo((counter, n, finished) -> {
        for (int i = 0; i < n; i++) {
            counter.store(counter.load() + 1);
        }
        finished.add(1);
        finished.wake();
        return n;
    });
}
