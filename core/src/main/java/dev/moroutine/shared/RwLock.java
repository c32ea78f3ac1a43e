package dev.moroutine.shared;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * A readers-writer lock whose whole state is four {@code int32} words of shared memory: any number
 * of readers, or one writer. Made by {@code Shared.shared(rwLock)}. Not reentrant, and a read lock cannot
 * be upgraded to a write lock (that would wait for itself).
 *
 * <h2>Guarantees</h2>
 * Releasing a write lock <i>happens-before</i> every later acquisition; releasing a read lock
 * <i>happens-before</i> every later write acquisition. So a reader sees everything the last writer
 * wrote, and a writer sees no reader mid-way.
 *
 * <h2>Blocking and fairness</h2>
 * Writer-preferring: while a writer waits, new readers wait too (so {@link #tryReadLock()} fails),
 * so a steady stream of readers cannot starve a writer: the readers inside finish and the writer
 * goes next. The other side of this choice: a steady stream of writers can hold readers off.
 * Among writers the lock is not fair (barging, like {@link Mutex}). Waiting threads park (a virtual
 * thread releases its carrier); platform threads spin for a few hundred nanoseconds first. A
 * release wakes all waiters, which then compete again.
 *
 * <h2>Across processes</h2>
 * As with {@link Mutex}: no holder is recorded, so a worker JVM that dies holding the lock (either
 * side) leaves it held for good.
 *
 * <h2>Interrupts</h2>
 * {@link #readLock()} and {@link #writeLock()} ignore interrupts (they return with the interrupt
 * status set); the timed variants throw {@link InterruptedException}.
 */
public sealed interface RwLock extends SharedValue permits dev.moroutine.internal.shared.RwLockCell {

    /**
     * Acquires a read lock, waiting (parked) while a writer holds or waits for the lock.
     *
     * @return the read guard; close it to release
     */
    Guard readLock();

    /**
     * Acquires a read lock, waiting at most {@code timeout}.
     *
     * @param timeout the longest wait; zero means only if available now
     * @return the read guard
     * @throws TimeoutException if it was not acquired in time
     * @throws InterruptedException if the thread is interrupted before or while waiting
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code timeout} is null
     */
    Guard readLock(Duration timeout) throws InterruptedException, TimeoutException;

    /**
     * Acquires a read lock if no writer holds or waits for the lock, without waiting.
     *
     * @return the read guard, or {@code null} if unavailable
     */
    Guard tryReadLock();

    /**
     * Acquires a read lock without blocking the caller; see {@link Mutex#lockAsync()}.
     *
     * @return a future of the read guard
     */
    CompletableFuture<Guard> readLockAsync();

    /**
     * Acquires the write lock, waiting (parked) until no reader or writer holds it.
     *
     * @return the write guard; close it to release
     */
    Guard writeLock();

    /**
     * Acquires the write lock, waiting at most {@code timeout}.
     *
     * @param timeout the longest wait; zero means only if free now
     * @return the write guard
     * @throws TimeoutException if it was not acquired in time
     * @throws InterruptedException if the thread is interrupted before or while waiting
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code timeout} is null
     */
    Guard writeLock(Duration timeout) throws InterruptedException, TimeoutException;

    /**
     * Acquires the write lock if nobody holds the lock, without waiting.
     *
     * @return the write guard, or {@code null} if any lock is held
     */
    Guard tryWriteLock();

    /**
     * Acquires the write lock without blocking the caller; see {@link Mutex#lockAsync()}.
     *
     * @return a future of the write guard
     */
    CompletableFuture<Guard> writeLockAsync();
}
