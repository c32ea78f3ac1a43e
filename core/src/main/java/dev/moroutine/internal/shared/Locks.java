package dev.moroutine.internal.shared;

import dev.moroutine.shared.Guard;
import java.util.concurrent.CompletableFuture;

/** What the mutex and the rwlock share: the bounded spin, deadlines and asynchronous acquisition. */
final class Locks {

    /** Spins of a platform thread before it parks: a few hundred nanoseconds. Virtual threads never spin. */
    static final int SPINS = 100;

    private Locks() {}

    /** An acquisition attempt that may wait. */
    @FunctionalInterface
    interface Acquire {
        /**
         * @param timeoutNanos negative for no limit
         * @return whether acquired
         */
        boolean acquire(long timeoutNanos, boolean interruptible) throws InterruptedException;
    }

    /** Whether this thread may spin: platform threads only, so a virtual thread never holds its carrier. */
    static boolean maySpin() {
        return !Thread.currentThread().isVirtual();
    }

    /** Nanoseconds left until {@code deadline}; {@code -1} (no limit) if there is none. */
    static long remaining(long timeoutNanos, long deadline) {
        if (timeoutNanos < 0) {
            return -1;
        }
        return Math.max(0, deadline - System.nanoTime());
    }

    static long deadline(long timeoutNanos) {
        return timeoutNanos < 0 ? 0 : System.nanoTime() + Math.min(timeoutNanos, Long.MAX_VALUE / 4);
    }

    /**
     * Acquires on a virtual thread; the future completes with a guard that any thread may close.
     * Cancelling the future interrupts the waiting thread; a hold acquired after the future was
     * cancelled is released at once, so none is ever lost.
     */
    static CompletableFuture<Guard> acquireAsync(LockGuard.Lock lock, int kind, Acquire acquire) {
        CompletableFuture<Guard> future = new CompletableFuture<>();
        Thread waiter = Thread.ofVirtual().name("moroutine-lock-async").unstarted(() -> {
            boolean acquired;
            try {
                acquired = acquire.acquire(-1, true);
            } catch (InterruptedException cancelled) {
                return;
            } catch (Throwable t) {
                future.completeExceptionally(t);
                return;
            }
            if (acquired && !future.complete(new LockGuard(lock, kind, null))) {
                lock.release(kind);
            }
        });
        future.whenComplete((guard, failure) -> {
            if (future.isCancelled()) {
                waiter.interrupt();
            }
        });
        waiter.start();
        return future;
    }
}
