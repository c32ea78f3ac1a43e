package dev.moroutine.internal.shared;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Waits and wakes across processes, for words in {@link SharedFiles chunk files}: how {@link Futex}
 * (Java parking, in-process) and the kernel's futex ({@link NativeFutex}, across processes) work
 * together without a lost wake and without polling.
 *
 * <h2>Words</h2>
 * Each chunk begins with {@link SharedFiles#WAIT_BUCKETS} wait buckets; a word's bucket is a hash
 * of its offset in the chunk, the same in every process. A bucket has two int32 words in the file:
 * {@code sleepers}, how many threads of all processes are waiting on a word of the bucket, and
 * {@code seq}, a counter that every cross-process wake of the bucket advances. A counter that only
 * moves forward, rather than the user's word (which may return to an old value), is what the
 * native waits compare, so a native wait can never sleep through a wake it missed (ABA).
 *
 * <h2>Threads</h2>
 * A caller's thread, virtual or platform, always waits in {@link Futex}, with Java parking: it can
 * be interrupted and time out, and a virtual thread does not pin its carrier. For each bucket that
 * has waiters in this process, one platform daemon thread, the bucket's <em>proxy</em>, sleeps in
 * the kernel on {@code seq}; when {@code seq} moves it wakes this process's waiters of the bucket
 * (in {@link Futex}), and sleeps again. With no waiters here it lingers for a second (a bucket
 * waited on again and again keeps its thread, instead of starting one per wait), sleeping in the
 * kernel with that timeout, then exits; {@link #forget} ends it at once.
 *
 * <h2>No lost wake</h2>
 * <pre>
 * waiter (any process)                         waker (any process)
 *   I  sleepers += 1                             W  changes the word (volatile write or atomic RMW)
 *   S  s := seq; registers (address, s) here     C  reads sleepers; if 0, done
 *   K  Futex: word == expected? enqueue, park    N  seq += 1; FUTEX_WAKE(seq, all)
 *   …  leaves: unregisters, sleepers -= 1
 * proxy: cur := seq; wakes (in Futex) every registered waiter whose s != cur, sets its s := cur;
 *        FUTEX_WAIT(seq, cur)
 * </pre>
 * All of I, S, K, W, C, N are volatile accesses of the same physical memory, so they are totally
 * ordered (x86-64 and AArch64 order volatile accesses of shared memory as for one process). If the
 * waiter parks, K saw the old word, so K precedes W, hence I precedes C: the waker sees a sleeper and
 * advances {@code seq} (N), after S. Then either the proxy reads {@code cur} after N (and wakes the
 * waiter, whose s is older), or it read it before N, and its FUTEX_WAIT either compares after N
 * (returns at once, and the proxy looks again) or is queued in the kernel before N's FUTEX_WAKE
 * (the kernel compares and queues atomically with respect to wakes), which wakes it. A waiter the
 * proxy wakes before it parks (between S and K) is not lost either: the proxy's wake follows N,
 * which follows W; if K came after W it sees the new word and does not wait (the ABA of the user's
 * own word is, as with any futex, the protocol's concern), and if before, the waiter is queued.
 *
 * <p>A wake in the waker's own process also goes through {@link Futex} directly. Cross-process
 * wakes are broadcast to the bucket: {@code wake(1)} may wake several waiters in other processes,
 * which re-check their condition, as after any spurious wake (the mutex and the rwlock do).
 */
final class ProcessWaits {

    private static final long SEQ = 0;
    private static final long SLEEPERS = 4;
    /** How long a proxy with no waiters stays, so that a bucket waited on again and again keeps its thread. */
    private static final long LINGER_NANOS = 1_000_000_000L;

    /** The watches of this process, by the address of their {@code seq} word. */
    private static final Map<Long, Watch> WATCHES = new ConcurrentHashMap<>();

    private ProcessWaits() {}

    /** One bucket of one chunk, as this process waits on it. */
    private static final class Watch implements Runnable {
        final SharedFiles.Chunk chunk;
        final long bucket;
        final ReentrantLock lock = new ReentrantLock();
        // Guarded by lock.
        final List<Waiter> waiters = new ArrayList<>();
        Thread proxy;
        boolean forgotten;

        Watch(SharedFiles.Chunk chunk, long bucket) {
            this.chunk = chunk;
            this.bucket = bucket;
        }

        long seqAddress() {
            return chunk.base + bucket + SEQ;
        }

        @Override
        public void run() {
            MemorySegment memory = chunk.memory;
            MemorySegment timespec = Arena.ofAuto().allocate(16, 8);
            long[] stale = new long[8];
            long idleSince = 0;
            for (;;) {
                int cur = Memory.getIntVolatile(memory, bucket + SEQ);
                int n = 0;
                boolean idle;
                lock.lock();
                try {
                    idle = waiters.isEmpty();
                    if (idle && idleSince == 0) {
                        idleSince = System.nanoTime();
                    } else if (!idle) {
                        idleSince = 0;
                    }
                    if (forgotten || idle && System.nanoTime() - idleSince >= LINGER_NANOS) {
                        proxy = null;
                        return;
                    }
                    for (Waiter w : waiters) {
                        if (w.snapshot != cur) {
                            w.snapshot = cur;
                            if (n == stale.length) {
                                stale = java.util.Arrays.copyOf(stale, n * 2);
                            }
                            stale[n++] = w.address;
                        }
                    }
                } finally {
                    lock.unlock();
                }
                if (n > 0) {
                    for (int i = 0; i < n; i++) {
                        Futex.wakeAddress(stale[i], Integer.MAX_VALUE);
                    }
                    continue;
                }
                if (idle) {
                    NativeFutex.await(seqAddress(), cur, LINGER_NANOS, timespec);
                } else {
                    NativeFutex.await(seqAddress(), cur);
                }
            }
        }
    }

    /** A thread of this process waiting on a word of a chunk; {@link #leave} when the wait ends, however. */
    static final class Waiter {
        final Watch watch;
        final long address;
        /** Guarded by the watch's lock. */
        int snapshot;

        Waiter(Watch watch, long address, int snapshot) {
            this.watch = watch;
            this.address = address;
            this.snapshot = snapshot;
        }

        void leave() {
            Watch w = watch;
            w.lock.lock();
            try {
                w.waiters.remove(this);
            } finally {
                w.lock.unlock();
            }
            Memory.getAndAddInt(w.chunk.memory, w.bucket + SLEEPERS, -1);
        }
    }

    /**
     * Steps I and S for a waiter, before {@link Futex} compares the word: counts it in its
     * bucket's sleepers and registers it with the bucket's proxy, starting one if needed.
     *
     * @return the registration, or null if the word is not in a chunk file (in-process only)
     */
    static Waiter arrive(MemorySegment segment, long offset) {
        SharedFiles.Chunk chunk = SharedFiles.chunkOf(segment, offset);
        if (chunk == null) {
            return null;
        }
        long address = segment.address() + offset;
        long bucket = chunk.bucket(address);
        MemorySegment memory = chunk.memory;
        Memory.getAndAddInt(memory, bucket + SLEEPERS, 1);
        int snapshot = Memory.getIntVolatile(memory, bucket + SEQ);
        for (;;) {
            Watch watch = WATCHES.computeIfAbsent(chunk.base + bucket + SEQ, k -> new Watch(chunk, bucket));
            Waiter waiter = new Waiter(watch, address, snapshot);
            watch.lock.lock();
            try {
                if (watch.forgotten) {
                    WATCHES.remove(watch.seqAddress(), watch);
                    continue;
                }
                watch.waiters.add(waiter);
                if (watch.proxy == null) {
                    watch.proxy = Thread.ofPlatform().daemon().name("moroutine-futex-proxy").start(watch);
                }
            } finally {
                watch.lock.unlock();
            }
            return waiter;
        }
    }

    /**
     * Steps C and N for a waker, after it changed the word: wakes the waiters of other processes
     * (and this one's proxy) if the word's bucket has any.
     *
     * @return how many proxies (one per process with waiters on the bucket) were woken
     */
    static int wake(MemorySegment segment, long offset) {
        SharedFiles.Chunk chunk = SharedFiles.chunkOf(segment, offset);
        if (chunk == null) {
            return 0;
        }
        long bucket = chunk.bucket(segment.address() + offset);
        if (Memory.getIntVolatile(chunk.memory, bucket + SLEEPERS) == 0) {
            return 0;
        }
        Memory.getAndAddInt(chunk.memory, bucket + SEQ, 1);
        return NativeFutex.wake(chunk.base + bucket + SEQ, Integer.MAX_VALUE);
    }

    /** The chunk is no longer shared: its proxies here exit; its waiters go on waiting in-process. */
    static void forget(SharedFiles.Chunk chunk) {
        for (Watch watch : WATCHES.values()) {
            if (watch.chunk != chunk) {
                continue;
            }
            watch.lock.lock();
            try {
                watch.forgotten = true;
            } finally {
                watch.lock.unlock();
            }
            WATCHES.remove(watch.seqAddress(), watch);
            Memory.getAndAddInt(chunk.memory, watch.bucket + SEQ, 1);
            NativeFutex.wake(watch.seqAddress(), Integer.MAX_VALUE);
        }
    }
}
