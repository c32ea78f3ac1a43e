package dev.moroutine.internal.shared;

import dev.moroutine.shared.Guard;
import dev.moroutine.shared.RwLock;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * The implementation of {@link RwLock}: four int32 words in shared memory (see {@link Layouts}),
 * writer-preferring, waiting through {@link Futex} on an epoch word.
 *
 * <h2>State</h2>
 * <pre>
 * state:  0 free │ n (1..2^30-1) readers hold it │ WRITER (bit 30) a writer holds it
 *
 * read:     CAS state n→n+1   if no WRITER bit and writers == 0  (writers waiting keep readers out)
 * unread:   state -1; the last reader out signals (only writers wait for readers)
 * write:    CAS state 0→WRITER; a writer that must wait counts itself in writers first
 * unwrite:  state := 0, signal
 * signal:   if sleepers != 0: epoch +1, wake all waiters of epoch
 * </pre>
 * A waiter counts itself in {@code sleepers}, reads {@code epoch}, tries to acquire, and if it
 * cannot, waits while {@code epoch} is unchanged. A releaser changes {@code state} and then reads
 * {@code sleepers}. All of these are volatile accesses, so either the releaser sees the sleeper
 * (and bumps the epoch, so the waiter's wait returns or is woken) or the sleeper's attempt comes
 * after the release in the synchronization order and succeeds. Waiting on a counter that only
 * moves forward (and not on {@code state}, which returns to old values) means a wait can never
 * sleep through a release it missed (the ABA problem). A writer that gives up (timeout,
 * interrupt) also signals, since readers may be waiting only because it was counted.
 */
public final class RwLockCell extends AbstractCell implements RwLock, LockGuard.Lock {

    private static final int WRITER = 1 << 30;
    private static final int READERS = WRITER - 1;

    private final long state;
    private final long writers;
    private final long epoch;
    private final long sleepers;

    RwLockCell(Desc<?> desc, MemorySegment segment, long offset) {
        super(desc, segment, offset);
        state = offset + Layouts.RW_STATE;
        writers = offset + Layouts.RW_WRITERS;
        epoch = offset + Layouts.RW_EPOCH;
        sleepers = offset + Layouts.RW_SLEEPERS;
    }

    private boolean tryRead() {
        while (true) {
            int s = Memory.getIntVolatile(segment, state);
            if ((s & WRITER) != 0 || Memory.getIntVolatile(segment, writers) != 0) {
                return false;
            }
            if ((s & READERS) == READERS) {
                throw new IllegalStateException(this + " already has the most readers it can count, " + READERS);
            }
            if (Memory.compareAndSetInt(segment, state, s, s + 1)) {
                return true;
            }
        }
    }

    private boolean tryWrite() {
        return Memory.compareAndSetInt(segment, state, 0, WRITER);
    }

    private boolean acquireRead(long timeoutNanos, boolean interruptible) throws InterruptedException {
        return acquire(false, timeoutNanos, interruptible);
    }

    private boolean acquireWrite(long timeoutNanos, boolean interruptible) throws InterruptedException {
        return acquire(true, timeoutNanos, interruptible);
    }

    private boolean attempt(boolean write) {
        return write ? tryWrite() : tryRead();
    }

    private boolean acquire(boolean write, long timeoutNanos, boolean interruptible) throws InterruptedException {
        if (attempt(write)) {
            return true;
        }
        if (timeoutNanos != 0 && Locks.maySpin()) {
            for (int i = 0; i < Locks.SPINS; i++) {
                Thread.onSpinWait();
                if (attempt(write)) {
                    return true;
                }
            }
        }
        long deadline = Locks.deadline(timeoutNanos);
        if (write) {
            Memory.getAndAddInt(segment, writers, 1);
        }
        boolean acquired = false;
        try {
            while (true) {
                Memory.getAndAddInt(segment, sleepers, 1);
                try {
                    int seen = Memory.getIntVolatile(segment, epoch);
                    if (attempt(write)) {
                        acquired = true;
                        return true;
                    }
                    long remaining = Locks.remaining(timeoutNanos, deadline);
                    if (remaining == 0) {
                        return false;
                    }
                    Futex.await(segment, epoch, seen, remaining, interruptible);
                } finally {
                    Memory.getAndAddInt(segment, sleepers, -1);
                }
            }
        } finally {
            if (write && Memory.getAndAddInt(segment, writers, -1) == 1 && !acquired) {
                signal(); // readers may have waited only for this writer
            }
        }
    }

    private void signal() {
        if (Memory.getIntVolatile(segment, sleepers) != 0) {
            Memory.getAndAddInt(segment, epoch, 1);
            Futex.wake(segment, epoch, Integer.MAX_VALUE);
        }
    }

    @Override
    public void release(int kind) {
        if (kind == LockGuard.WRITE) {
            Memory.putIntVolatile(segment, state, 0);
            signal();
        } else if (((Memory.getAndAddInt(segment, state, -1) - 1) & READERS) == 0) {
            signal();
        }
    }

    private Guard guard(int kind) {
        return new LockGuard(this, kind, Thread.currentThread());
    }

    private Guard blocking(int kind) {
        try {
            acquire(kind == LockGuard.WRITE, -1, false);
        } catch (InterruptedException impossible) {
            throw new AssertionError(impossible);
        }
        return guard(kind);
    }

    private Guard timed(int kind, Duration timeout) throws InterruptedException, TimeoutException {
        long nanos = Values.timeoutNanos(timeout);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (acquire(kind == LockGuard.WRITE, nanos, true)) {
            return guard(kind);
        }
        throw new TimeoutException("the " + (kind == LockGuard.WRITE ? "write" : "read") + " lock of " + this
                + " was not acquired within " + timeout);
    }

    @Override
    public Guard readLock() {
        return tryRead() ? guard(LockGuard.READ) : blocking(LockGuard.READ);
    }

    @Override
    public Guard readLock(Duration timeout) throws InterruptedException, TimeoutException {
        return timed(LockGuard.READ, timeout);
    }

    @Override
    public Guard tryReadLock() {
        return tryRead() ? guard(LockGuard.READ) : null;
    }

    @Override
    public CompletableFuture<Guard> readLockAsync() {
        if (tryRead()) {
            return CompletableFuture.completedFuture(new LockGuard(this, LockGuard.READ, null));
        }
        return Locks.acquireAsync(this, LockGuard.READ, this::acquireRead);
    }

    @Override
    public Guard writeLock() {
        return tryWrite() ? guard(LockGuard.WRITE) : blocking(LockGuard.WRITE);
    }

    @Override
    public Guard writeLock(Duration timeout) throws InterruptedException, TimeoutException {
        return timed(LockGuard.WRITE, timeout);
    }

    @Override
    public Guard tryWriteLock() {
        return tryWrite() ? guard(LockGuard.WRITE) : null;
    }

    @Override
    public CompletableFuture<Guard> writeLockAsync() {
        if (tryWrite()) {
            return CompletableFuture.completedFuture(new LockGuard(this, LockGuard.WRITE, null));
        }
        return Locks.acquireAsync(this, LockGuard.WRITE, this::acquireWrite);
    }

    @Override
    public Object loadValue() {
        return this;
    }

    @Override
    public void checkValue(Object value) {
        Values.instance(value, RwLock.class, desc);
    }

    @Override
    public void storeValue(Object value) {
        // Lock state is never copied.
    }
}
