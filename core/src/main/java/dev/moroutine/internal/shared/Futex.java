package dev.moroutine.internal.shared;

import dev.moroutine.shared.WaitResult;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The waiter registry: futex-style wait and wake on an {@code int32} word of shared memory, done
 * with Java parking instead of the operating system's futex (a native wait would pin a virtual
 * thread's carrier and ignore {@link Thread#interrupt()}).
 *
 * <h2>Design</h2>
 * A word is identified by its native address ({@code segment.address() + offset}), so every view of
 * the same memory in this process shares its waiters. Addresses hash to one of {@link #BUCKETS}
 * buckets (as in the Linux futex), each a {@link ReentrantLock} (never a monitor, so a virtual
 * thread does not pin) guarding a FIFO list of waiters, plus an atomic count of them.
 *
 * <h2>No lost wake</h2>
 * A waiter counts itself into its bucket, then, under the bucket's lock, compares the word with
 * the expected value and enqueues itself only if they are equal. A waker first changes the word
 * (with a volatile write or an atomic read-modify-write), then reads the count, and takes the lock
 * only if it is non-zero. These four accesses are all volatile, so they are totally ordered: either
 * the waker sees the waiter counted (and takes the lock, which it gets before or after the
 * waiter's check-and-enqueue: before, and the waiter's check sees the new word; after, and the
 * waker finds it queued), or the waiter counted itself after the waker read the count, and so its
 * check sees the new word and it does not wait. A wake given to a waiter that is just timing out
 * or being interrupted is not lost either: the waiter leaves with {@code OK} (and its interrupt
 * status set again) whenever it finds it was dequeued by a waker.
 *
 * <h2>Other processes</h2>
 * A word in a chunk file ({@link SharedFiles}), which other processes map too, is also waited on and
 * woken through {@link ProcessWaits}: a waiter registers there before it compares the word, and a
 * waker wakes there after it wakes here, if it woke fewer here than it was asked to; that class
 * shows why no wake is lost. Its cost for other
 * memory is one {@link MemorySegment#isNative()} test per wake, and a look-up while a pool is open.
 *
 * <h2>Asynchronous waiters</h2>
 * {@link #awaitAsync} enqueues a waiter with a future instead of a thread. Its future completes on
 * a new virtual thread, never on the waker's thread, so a waker (a mutex's unlock, say) never runs
 * the dependent stages of somebody else's future. A timeout is scheduled on the library's one
 * timer thread ({@link DelayedActions}), whose cancelled actions leave its queue at once; when the future completes (woken,
 * cancelled, or by the caller) the waiter leaves the bucket and its timeout is cancelled, so a
 * woken waiter is not kept reachable until its timeout would have fired.
 */
final class Futex {

    /** A power of two; enough that unrelated words rarely share a bucket. */
    private static final int BUCKETS = 256;
    private static final Bucket[] TABLE = new Bucket[BUCKETS];
    /** Completes asynchronous waiters off the waker's thread. Virtual threads are daemons. */
    static final Executor COMPLETIONS = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("moroutine-shared-wake-", 0).factory());

    static {
        for (int i = 0; i < BUCKETS; i++) {
            TABLE[i] = new Bucket();
        }
    }

    private Futex() {}

    private static final class Bucket {
        final ReentrantLock lock = new ReentrantLock();
        final AtomicInteger waiters = new AtomicInteger();
        Waiter head;
        Waiter tail;

        void enqueue(Waiter w) {
            w.queued = true;
            w.prev = tail;
            if (tail == null) {
                head = w;
            } else {
                tail.next = w;
            }
            tail = w;
        }

        void remove(Waiter w) {
            if (w.prev == null) {
                head = w.next;
            } else {
                w.prev.next = w.next;
            }
            if (w.next == null) {
                tail = w.prev;
            } else {
                w.next.prev = w.prev;
            }
            w.prev = null;
            w.next = null;
            w.queued = false;
            waiters.decrementAndGet();
        }
    }

    private static final class Waiter {
        final long address;
        final Thread thread;
        final CompletableFuture<WaitResult> future;
        /** Guarded by the bucket's lock. */
        Waiter prev;
        Waiter next;
        boolean queued;
        /** Set by a waker, after it dequeued this waiter. */
        volatile boolean woken;

        Waiter(long address, Thread thread, CompletableFuture<WaitResult> future) {
            this.address = address;
            this.thread = thread;
            this.future = future;
        }
    }

    private static long address(MemorySegment segment, long offset) {
        return segment.address() + offset;
    }

    private static Bucket bucket(long address) {
        long h = address * 0x9E3779B97F4A7C15L;
        return TABLE[(int) (h >>> 56) & (BUCKETS - 1)];
    }

    /**
     * Waits while the word equals {@code expected}, until woken, timed out or interrupted.
     *
     * @param timeoutNanos how long at most; negative for no limit, 0 to check without waiting
     * @param interruptible whether an interrupt ends the wait with an {@link InterruptedException};
     *     if not, the wait goes on and the interrupt status is set again on return
     * @return {@code NOT_EQUAL} if the word differed, {@code OK} if woken, {@code TIMED_OUT}
     * @throws InterruptedException if interruptible and interrupted before a wake
     */
    static WaitResult await(MemorySegment segment, long offset, int expected, long timeoutNanos, boolean interruptible)
            throws InterruptedException {
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (Memory.getIntVolatile(segment, offset) != expected) {
            return WaitResult.NOT_EQUAL;
        }
        if (timeoutNanos == 0) {
            return WaitResult.TIMED_OUT;
        }
        ProcessWaits.Waiter crossing = ProcessWaits.arrive(segment, offset);
        try {
            return awaitHere(segment, offset, expected, timeoutNanos, interruptible);
        } finally {
            if (crossing != null) {
                crossing.leave();
            }
        }
    }

    private static WaitResult awaitHere(MemorySegment segment, long offset, int expected, long timeoutNanos, boolean interruptible)
            throws InterruptedException {
        long address = address(segment, offset);
        Bucket bucket = bucket(address);
        Waiter waiter = new Waiter(address, Thread.currentThread(), null);
        if (!enqueueIfEqual(bucket, waiter, segment, offset, expected)) {
            return WaitResult.NOT_EQUAL;
        }
        long deadline = timeoutNanos > 0 ? System.nanoTime() + timeoutNanos : 0;
        boolean interrupted = false;
        boolean timedOut = false;
        while (!waiter.woken) {
            if (timeoutNanos > 0) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    timedOut = true;
                    break;
                }
                LockSupport.parkNanos(bucket, remaining);
            } else {
                LockSupport.park(bucket);
            }
            if (Thread.interrupted()) {
                interrupted = true;
                if (interruptible) {
                    break;
                }
            }
        }
        if (!waiter.woken && dequeue(bucket, waiter)) {
            if (interrupted && interruptible) {
                throw new InterruptedException();
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return timedOut ? WaitResult.TIMED_OUT : WaitResult.OK;
        }
        // Woken (possibly while timing out or being interrupted): the wake is ours, keep it.
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return WaitResult.OK;
    }

    /**
     * Registers a waiter that completes a future when woken.
     *
     * @param timeoutNanos how long at most; negative for no limit
     * @return a future that completes with {@code OK}, {@code TIMED_OUT}, or at once with {@code NOT_EQUAL}
     */
    static CompletableFuture<WaitResult> awaitAsync(MemorySegment segment, long offset, int expected, long timeoutNanos) {
        if (Memory.getIntVolatile(segment, offset) != expected) {
            return CompletableFuture.completedFuture(WaitResult.NOT_EQUAL);
        }
        if (timeoutNanos == 0) {
            return CompletableFuture.completedFuture(WaitResult.TIMED_OUT);
        }
        long address = address(segment, offset);
        Bucket bucket = bucket(address);
        CompletableFuture<WaitResult> future = new CompletableFuture<>();
        Waiter waiter = new Waiter(address, null, future);
        ProcessWaits.Waiter crossing = ProcessWaits.arrive(segment, offset);
        if (!enqueueIfEqual(bucket, waiter, segment, offset, expected)) {
            if (crossing != null) {
                crossing.leave();
            }
            return CompletableFuture.completedFuture(WaitResult.NOT_EQUAL);
        }
        // Scheduled before the cleanup is registered, so the cleanup always finds it to cancel.
        Future<?> timeout = timeoutNanos > 0
                ? DelayedActions.schedule(() -> {
                    if (dequeue(bucket, waiter)) {
                        COMPLETIONS.execute(() -> future.complete(WaitResult.TIMED_OUT));
                    }
                }, timeoutNanos)
                : null;
        // Woken, cancelled or completed by the caller: leave the queue so no wake is spent on it,
        // and drop the timeout, which would otherwise keep the waiter reachable until it fires.
        future.whenComplete((result, failure) -> {
            if (!waiter.woken) {
                dequeue(bucket, waiter);
            }
            if (timeout != null) {
                timeout.cancel(false);
            }
            if (crossing != null) {
                crossing.leave();
            }
        });
        return future;
    }

    private static boolean enqueueIfEqual(Bucket bucket, Waiter waiter, MemorySegment segment, long offset, int expected) {
        bucket.waiters.incrementAndGet();
        bucket.lock.lock();
        try {
            if (Memory.getIntVolatile(segment, offset) != expected) {
                bucket.waiters.decrementAndGet();
                return false;
            }
            bucket.enqueue(waiter);
            return true;
        } finally {
            bucket.lock.unlock();
        }
    }

    /** @return whether this call took the waiter out of the queue (false: a waker did first) */
    private static boolean dequeue(Bucket bucket, Waiter waiter) {
        bucket.lock.lock();
        try {
            if (!waiter.queued) {
                return false;
            }
            bucket.remove(waiter);
            return true;
        } finally {
            bucket.lock.unlock();
        }
    }

    /**
     * Wakes up to {@code count} waiters of the word, oldest first. Call it after changing the word
     * with a volatile write or an atomic read-modify-write.
     *
     * @param count the most to wake, at least 0
     * @return how many were woken: exactly, in this process; a word in a chunk file that has waiters
     *     in other processes also counts one per process woken, up to {@code count}
     */
    static int wake(MemorySegment segment, long offset, int count) {
        if (count <= 0) {
            return 0;
        }
        int woken = wakeAddress(address(segment, offset), count);
        if (woken == count || !segment.isNative()) {
            return woken;
        }
        // Fewer here than asked: the other processes' (ProcessWaits counts one per process it woke).
        return (int) Math.min(count, (long) woken + ProcessWaits.wake(segment, offset));
    }

    /** Wakes up to {@code count} waiters of this process on the word at {@code address}. */
    static int wakeAddress(long address, int count) {
        Bucket bucket = bucket(address);
        if (bucket.waiters.get() == 0) {
            return 0;
        }
        Waiter first = null;
        List<Waiter> more = null;
        int woken = 0;
        bucket.lock.lock();
        try {
            for (Waiter w = bucket.head; w != null && woken < count; ) {
                Waiter next = w.next;
                if (w.address == address) {
                    bucket.remove(w);
                    w.woken = true;
                    if (first == null) {
                        first = w;
                    } else {
                        if (more == null) {
                            more = new ArrayList<>();
                        }
                        more.add(w);
                    }
                    woken++;
                }
                w = next;
            }
        } finally {
            bucket.lock.unlock();
        }
        if (first != null) {
            resume(first);
            if (more != null) {
                more.forEach(Futex::resume);
            }
        }
        return woken;
    }

    private static void resume(Waiter w) {
        if (w.thread != null) {
            LockSupport.unpark(w.thread);
        } else {
            COMPLETIONS.execute(() -> w.future.complete(WaitResult.OK));
        }
    }
}
