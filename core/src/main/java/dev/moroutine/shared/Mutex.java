package dev.moroutine.shared;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * A mutual-exclusion lock whose whole state is one {@code int32} word of shared memory, so it can
 * sit inside a struct or tuple next to the data it guards, and (later) work across processes.
 * Made by {@code Shared.shared(mutex)}. Not reentrant: a thread that locks it twice waits for itself.
 *
 * <pre>{@code
 * try (Guard g = mu.lock()) {
 *     pos.store(new Point(pos.load().x() + 1, 0));
 * }
 * }</pre>
 *
 * <h2>Guarantees</h2>
 * Releasing the lock <i>happens-before</i> every later acquisition, so whatever a holder wrote to
 * shared memory (with any access mode) is visible to the next holder.
 *
 * <h2>Blocking and fairness</h2>
 * {@link #lock()} returns at once when the lock is free (one compare-and-set). Otherwise a platform
 * thread spins for a few hundred nanoseconds, then parks; a virtual thread parks at once and
 * releases its carrier. It never spins unboundedly and never sits in native code. Waiters are
 * woken one at a time, oldest first, but the lock is <em>not fair</em>: a thread that arrives while
 * the lock is free may take it before the woken waiter gets to run (barging), as with a
 * non-fair {@link java.util.concurrent.locks.ReentrantLock}. That keeps lock hand-offs cheap;
 * in exchange, a waiter has no bound on how often it can be overtaken.
 *
 * <h2>Across processes</h2>
 * Passed to an isolated worker JVM, a mutex locks across the processes. It records no owner (the
 * word is 0, 1 or 2), so a worker JVM that dies while it holds the lock (killed, crashed in
 * native code, killed on its task's timeout, {@code Runtime.halt}) leaves it locked for good: no
 * process can tell that its holder is gone, and {@link #lock()} waits forever. Hold a shared mutex
 * only around code that cannot die midway, or lock it with {@link #lock(Duration)}, whose
 * {@link TimeoutException} then says that a holder may have died. (A robust mutex, that the next
 * locker acquires with an "owner died" flag, is not done yet.) The same holds for {@link RwLock}.
 *
 * <h2>Interrupts</h2>
 * {@link #lock()} ignores interrupts (it keeps waiting and returns with the interrupt status set);
 * {@link #lock(Duration)} throws {@link InterruptedException}, as {@code Lock.lock()} and
 * {@code Lock.tryLock(long, TimeUnit)} do.
 */
public sealed interface Mutex extends SharedValue permits dev.moroutine.internal.shared.MutexCell {

    /**
     * Acquires the lock, waiting (parked) as long as it takes.
     *
     * @return the guard; close it to unlock
     */
    Guard lock();

    /**
     * Acquires the lock, waiting at most {@code timeout}.
     *
     * @param timeout the longest wait; zero means only if free now
     * @return the guard; close it to unlock
     * @throws TimeoutException if the lock was not acquired in time
     * @throws InterruptedException if the thread is interrupted before or while waiting
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code timeout} is null
     */
    Guard lock(Duration timeout) throws InterruptedException, TimeoutException;

    /**
     * Acquires the lock if it is free now, without waiting. Returns {@code null} when it is held,
     * which try-with-resources skips, so check it before the critical section:
     *
     * <pre>{@code
     * try (Guard g = mu.tryLock()) {
     *     if (g == null) return;   // held elsewhere
     *     // exclusive access
     * }
     * }</pre>
     *
     * @return the guard, or {@code null} if the lock is held
     */
    Guard tryLock();

    /**
     * Acquires the lock without blocking the caller: the future completes with the guard once it
     * is held. The guard may be closed from any thread. Cancelling the future before it completes
     * gives up the acquisition (a lock acquired just then is released at once).
     *
     * @return a future of the guard; already complete if the lock was free
     */
    CompletableFuture<Guard> lockAsync();

    /**
     * Whether some thread holds the lock now: a snapshot for monitoring, not for synchronization.
     *
     * @return {@code true} if held
     */
    boolean isLocked();
}
