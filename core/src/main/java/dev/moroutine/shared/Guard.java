package dev.moroutine.shared;

/**
 * Proof of holding a {@link Mutex} or one side of an {@link RwLock}; {@link #close()} releases it,
 * so try-with-resources scopes the critical section:
 *
 * <pre>{@code
 * try (Guard g = mu.lock()) {
 *     // exclusive access
 * }
 * }</pre>
 *
 * <p>A guard releases its lock once. A guard from a blocking or {@code try…} acquisition belongs to
 * the thread that acquired it; a guard from an {@code …Async} acquisition belongs to whoever holds
 * the object, and may be closed from any thread (once).
 */
public sealed interface Guard extends AutoCloseable permits dev.moroutine.internal.shared.LockGuard {

    /**
     * Releases the lock. Everything the holder did before <i>happens-before</i> the next
     * acquisition of the lock (for a read guard: the next write acquisition).
     *
     * @throws IllegalMonitorStateException if this guard was already closed, or it belongs to
     *     another thread; the lock is then left as it is
     */
    @Override
    void close();
}
