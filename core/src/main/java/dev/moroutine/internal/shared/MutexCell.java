package dev.moroutine.internal.shared;

import dev.moroutine.shared.Guard;
import dev.moroutine.shared.Mutex;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * The implementation of {@link Mutex}: Ulrich Drepper's third mutex from "Futexes Are Tricky",
 * over one int32 word in shared memory and {@link Futex}.
 *
 * <h2>State</h2>
 * <pre>
 * 0 UNLOCKED ──CAS 0→1 (fast path)──► 1 LOCKED ──waiter: XCHG →2──► 2 CONTENDED
 *     ▲                                  │                               │
 *     └────────── unlock: XCHG →0 ◄──────┴───────────────────────────────┘
 *                 (if it was 2: wake one waiter)
 * </pre>
 * A thread that finds the lock held swaps in 2 ("there may be waiters") and, unless it swapped
 * out a 0 (then it owns the lock), waits while the word is 2; woken, it swaps in 2 again. Unlock
 * swaps in 0 and, if it took out a 2, wakes one waiter. So an uncontended lock/unlock is one CAS
 * and one swap, and touches no waiter registry. A thread that acquires through the waiting path
 * leaves 2 behind even when nobody else waits; its unlock then makes one wake call that finds
 * nobody (a read of the bucket's count). Waiters that time out or are interrupted just leave: the
 * word stays 2, so the next unlock still wakes the next waiter. Not fair: a newcomer's CAS can win
 * over a woken waiter (see {@link Mutex}).
 */
public final class MutexCell extends AbstractCell implements Mutex, LockGuard.Lock {

    private static final int UNLOCKED = 0;
    private static final int LOCKED = 1;
    private static final int CONTENDED = 2;

    MutexCell(Desc<?> desc, MemorySegment segment, long offset) {
        super(desc, segment, offset);
    }

    private boolean tryAcquire() {
        return Memory.compareAndSetInt(segment, offset, UNLOCKED, LOCKED);
    }

    private Guard guard() {
        return new LockGuard(this, LockGuard.MUTEX, Thread.currentThread());
    }

    @Override
    public Guard lock() {
        if (!tryAcquire()) {
            try {
                acquire(-1, false);
            } catch (InterruptedException impossible) {
                throw new AssertionError(impossible);
            }
        }
        return guard();
    }

    @Override
    public Guard lock(Duration timeout) throws InterruptedException, TimeoutException {
        long nanos = Values.timeoutNanos(timeout);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (tryAcquire() || acquire(nanos, true)) {
            return guard();
        }
        throw new TimeoutException(this + " was not acquired within " + timeout + (SharedFiles.chunkOf(segment, offset) == null
                ? "" : "; it is shared with worker JVMs, and one that died holding it (killed, crashed, timed out) leaves it"
                + " locked for good: a Mutex records no owner (see Mutex, \"Across processes\")"));
    }

    @Override
    public Guard tryLock() {
        return tryAcquire() ? guard() : null;
    }

    @Override
    public CompletableFuture<Guard> lockAsync() {
        if (tryAcquire()) {
            return CompletableFuture.completedFuture(new LockGuard(this, LockGuard.MUTEX, null));
        }
        return Locks.acquireAsync(this, LockGuard.MUTEX, this::acquire);
    }

    @Override
    public boolean isLocked() {
        return Memory.getIntVolatile(segment, offset) != UNLOCKED;
    }

    /** The slow path: spin a little (platform threads), then wait on the word. */
    private boolean acquire(long timeoutNanos, boolean interruptible) throws InterruptedException {
        if (timeoutNanos != 0 && Locks.maySpin()) {
            for (int i = 0; i < Locks.SPINS; i++) {
                Thread.onSpinWait();
                if (Memory.getIntOpaque(segment, offset) == UNLOCKED && tryAcquire()) {
                    return true;
                }
            }
        }
        long deadline = Locks.deadline(timeoutNanos);
        int c = Memory.getAndSetInt(segment, offset, CONTENDED);
        while (c != UNLOCKED) {
            long remaining = Locks.remaining(timeoutNanos, deadline);
            if (remaining == 0) {
                return false;
            }
            Futex.await(segment, offset, CONTENDED, remaining, interruptible);
            c = Memory.getAndSetInt(segment, offset, CONTENDED);
        }
        return true;
    }

    @Override
    public void release(int kind) {
        if (Memory.getAndSetInt(segment, offset, UNLOCKED) == CONTENDED) {
            Futex.wake(segment, offset, 1);
        }
    }

    @Override
    public Object loadValue() {
        return this;
    }

    @Override
    public void checkValue(Object value) {
        Values.instance(value, Mutex.class, desc);
    }

    @Override
    public void storeValue(Object value) {
        // Lock state is never copied.
    }
}
