package dev.moroutine.serve;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition that no latch can signal (a server-side count), with a deadline. */
final class Await {

    private Await() {}

    /** Returns once {@code condition} holds; fails with {@code what()} if it does not within {@code timeout}. */
    static void until(BooleanSupplier condition, Duration timeout, Supplier<String> what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + timeout + ": " + what.get());
            }
            LockSupport.parkNanos(200_000); // re-check soon: what is awaited is another thread's counter
        }
    }
}
