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
 * of its offset in the chunk, the same in every process. A bucket has, in the file, {@code sleepers}
 * (int32), how many threads of all processes are waiting on a word of the bucket, and an int64
 * {@code wake} word: its low half is {@code seq}, a counter that every cross-process wake of the
 * bucket advances, its high half the <em>tag</em> of the wake that advanced it last: the waker's
 * mapping ({@link SharedFiles.Chunk#origin}, unique among the file's mappings in all processes) and
 * the woken word's index in the chunk. The waker sets both with one 64-bit compare-and-set, so a
 * tag always belongs to the {@code seq} it is read with. A counter that only moves forward, rather
 * than the user's word (which may return to an old value), is what the native waits compare, so a
 * native wait can never sleep through a wake it missed (ABA).
 *
 * <h2>Threads</h2>
 * A caller's thread, virtual or platform, always waits in {@link Futex}, with Java parking: it can
 * be interrupted and time out, and a virtual thread does not pin its carrier. For each bucket that
 * has waiters in this mapping, one platform daemon thread, the bucket's <em>proxy</em>, sleeps in
 * the kernel on {@code seq}, for at most {@link #LINGER_NANOS} (a second) at a time; when {@code seq}
 * moves it wakes the waiters it concerns (in {@link Futex}), and sleeps again. Once it has had no
 * waiters for a second (they were woken, timed out, were interrupted or cancelled: the timed
 * sleep means it notices without anybody's wake) it exits; a bucket waited on again and again so
 * keeps its thread instead of starting one per wait. {@link #forget} ends it within that second.
 *
 * <h2>No lost wake</h2>
 * <pre>
 * waiter (any process)                         waker (any process)
 *   I  sleepers += 1                             W  changes the word (volatile write or atomic RMW)
 *   S  s := seq; registers (address, s) here     L  wakes up to count waiters of its own mapping
 *   K  Futex: word == expected? enqueue, park       (Futex); if that was count, done
 *   …  leaves: unregisters, sleepers -= 1        C  reads sleepers; if 0, done
 *                                                N  (seq, tag) := (seq + 1, its tag);
 *                                                   FUTEX_WAKE_BITSET(seq, all, every mapping but its own)
 * proxy: (cur, tag) := wake word; for every registered waiter whose s != cur: sets s := cur and wakes it
 *        (in Futex) unless cur == s + 1 and the tag shows the one wake since S was its own mapping's
 *        or another word's; FUTEX_WAIT_BITSET(seq, cur, its mapping's bit, a second)
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
 * <p>What the proxy skips is not lost: if {@code seq} moved by exactly one since S, that one wake is
 * the tagged one. A wake of another word is not the waiter's. A wake from its own mapping was
 * given in L, before N, by {@link Futex}, whose own protocol covers every waiter of the mapping
 * counted before L; N happens only if L found fewer than {@code count}, i.e. woke every one of them.
 * If {@code seq} moved by more than one, the proxy cannot tell the wakes apart and wakes the waiter,
 * which re-checks its word, as after any spurious wake. The waker's mask leaves out its own
 * mapping's proxy ({@link #bit}), so a wake does not wake its own process's proxy for nothing.
 * There are 31 such bits: mappings after the 31st of a file share bit 0, so their wakes also wake
 * their own proxy (which skips them by the tag) and count it; mappings after the 16,383rd have no
 * tag of their own (origin 0), and their proxies wake their waiters on every wake of the bucket.
 *
 * <p>So {@code wake(n)} wakes exactly what {@link Futex} counts in this process, and a waiter of a
 * word here is never woken by a wake of another word from this process. Across processes a wake is
 * broadcast: each process woken wakes every waiter of that word there, and {@code wake(n)} counts
 * one per process whose proxy it woke (it cannot know how many waited on that very word).
 */
final class ProcessWaits {

    private static final long SLEEPERS = 4;
    /** The int64 wake word: {@code seq} in its low half (the futex word), the last wake's tag in the high half. */
    private static final long WAKE = 8;
    private static final long SEQ = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN ? WAKE : WAKE + 4;
    private static final int INDEX_BITS = 18;
    /** How many mappings of a chunk can have an origin (the tag's other bits). */
    static final int ORIGINS = 1 << (32 - INDEX_BITS);
    /** How long a proxy sleeps at most, and stays with no waiters. */
    private static final long LINGER_NANOS = 1_000_000_000L;

    /** The watches of this process, by the address of their {@code seq} word. */
    private static final Map<Long, Watch> WATCHES = new ConcurrentHashMap<>();

    private ProcessWaits() {}

    /** The futex bit a mapping's proxies sleep with: its own for origins 1 to 31, else bit 0, shared. */
    static int bit(int origin) {
        return origin > 0 && origin < 32 ? 1 << origin : 1;
    }

    /** The word's index in its chunk, or 0 (no word's, as bucket 0 is there) if it does not fit the tag. */
    private static int index(SharedFiles.Chunk chunk, long address) {
        long index = (address - chunk.base) >>> 2;
        return index < 1 << INDEX_BITS ? (int) index : 0;
    }

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

        /** Whether the one wake tagged {@code tag} concerns the waiter. */
        boolean concerns(int tag, Waiter w) {
            int origin = tag >>> INDEX_BITS;
            int index = tag & ((1 << INDEX_BITS) - 1);
            return (origin == 0 || origin != chunk.origin) && (index == 0 || index == w.index);
        }

        @Override
        public void run() {
            MemorySegment memory = chunk.memory;
            MemorySegment timespec = Arena.ofAuto().allocate(16, 8);
            int bit = bit(chunk.origin);
            long[] stale = new long[8];
            long idleSince = 0;
            for (;;) {
                long word = Memory.getLongVolatile(memory, bucket + WAKE);
                int cur = (int) word;
                int tag = (int) (word >>> 32);
                int n = 0;
                lock.lock();
                try {
                    boolean idle = waiters.isEmpty();
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
                            boolean concerned = cur - w.snapshot != 1 || concerns(tag, w);
                            w.snapshot = cur;
                            if (!concerned) {
                                continue;
                            }
                            if (n == stale.length) {
                                stale = java.util.Arrays.copyOf(stale, n * 2);
                            }
                            stale[n++] = w.address;
                        }
                    }
                } finally {
                    lock.unlock();
                }
                for (int i = 0; i < n; i++) {
                    Futex.wakeAddress(stale[i], Integer.MAX_VALUE);
                }
                NativeFutex.await(seqAddress(), cur, bit, System.nanoTime() + LINGER_NANOS, timespec);
            }
        }
    }

    /** A thread of this process waiting on a word of a chunk; {@link #leave} when the wait ends, however. */
    static final class Waiter {
        final Watch watch;
        final long address;
        final int index;
        /** Guarded by the watch's lock. */
        int snapshot;

        Waiter(Watch watch, long address, int snapshot) {
            this.watch = watch;
            this.address = address;
            this.index = index(watch.chunk, address);
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
     * Steps C and N for a waker, after it changed the word and woke fewer than it meant to in
     * {@link Futex} (step L): wakes the proxies of the other mappings, if the word's bucket has
     * waiters anywhere.
     *
     * @return how many proxies (one per other mapping with waiters on the bucket) were woken
     */
    static int wake(MemorySegment segment, long offset) {
        SharedFiles.Chunk chunk = SharedFiles.chunkOf(segment, offset);
        if (chunk == null) {
            return 0;
        }
        long address = segment.address() + offset;
        long bucket = chunk.bucket(address);
        MemorySegment memory = chunk.memory;
        if (Memory.getIntVolatile(memory, bucket + SLEEPERS) == 0) {
            return 0;
        }
        long tag = (long) chunk.origin << INDEX_BITS | index(chunk, address);
        long word = Memory.getLongVolatile(memory, bucket + WAKE);
        for (;;) {
            long next = tag << 32 | ((word + 1) & 0xFFFF_FFFFL);
            long witness = Memory.compareAndExchangeLong(memory, bucket + WAKE, word, next);
            if (witness == word) {
                break;
            }
            word = witness;
        }
        return NativeFutex.wake(chunk.base + bucket + SEQ, Integer.MAX_VALUE, ~bit(chunk.origin) | (chunk.origin == 0 ? 1 : 0));
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
            // Wakes only this mapping's proxies; one that misses it (not yet asleep) sees forgotten within a second.
            NativeFutex.wake(watch.seqAddress(), Integer.MAX_VALUE, bit(chunk.origin));
        }
    }
}
