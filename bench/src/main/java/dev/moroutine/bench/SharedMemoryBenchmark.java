package dev.moroutine.bench;

import static dev.moroutine.shared.Shared.*;

import dev.moroutine.shared.Int32Atomic;
import dev.moroutine.shared.Int64Atomic;
import dev.moroutine.shared.Mutex;
import dev.moroutine.shared.Shared;
import dev.moroutine.shared.Struct;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Shared memory beside the JDK's equivalents, in nanoseconds per operation:
 *
 * <ul>
 *   <li>lock/unlock of an empty-ish critical section: {@code Mutex} vs {@code ReentrantLock}
 *       (non-fair) vs {@code synchronized}, uncontended (1 thread) and contended (2 threads, this
 *       machine's cores, in one JMH group per lock);</li>
 *   <li>atomic add: {@code Int32Atomic.add} vs {@code AtomicInteger.getAndAdd}, {@code Int64Atomic.add}
 *       vs {@code AtomicLong.getAndAdd}, uncontended and contended;</li>
 *   <li>a two-field struct's {@code load}/{@code store} vs copying a plain record through a field.</li>
 * </ul>
 *
 * Targets (issue 3): uncontended {@code Mutex} within 1.5× of {@code ReentrantLock}; atomic add
 * within 1.2× of {@code AtomicInteger}.
 *
 * <p>Run (from the repository root):
 * <pre>
 * mvn -q -Pbench -DskipTests package -Dbench.include=SharedMemory
 * </pre>
 * or, for a short look, JMH's own runner on the module's class path:
 * {@code java -cp … org.openjdk.jmh.Main SharedMemory -f 1 -wi 2 -i 3}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SharedMemoryBenchmark {

    /** A two-field record, as a struct and as a plain object. */
    public record Point(int x, int y) {}

    private final Mutex mutex = shared(Shared.mutex);
    private final ReentrantLock reentrantLock = new ReentrantLock();
    private final Object monitor = new Object();
    /** Written only inside the critical sections. */
    private long guarded;

    private final Int32Atomic int32Atomic = shared(Shared.int32Atomic);
    private final Int64Atomic int64Atomic = shared(Shared.int64Atomic);
    private final AtomicInteger atomicInteger = new AtomicInteger();
    private final AtomicLong atomicLong = new AtomicLong();

    private final Struct<Point> struct = shared(new Point(1, 2));
    private volatile Point plain = new Point(1, 2);
    private int next;

    /**
     * Mutex, one thread.
     *
     * @return the counter, for JMH to consume
     */
    @Benchmark
    public long mutexUncontended() {
        try (var _ = mutex.lock()) {
            return ++guarded;
        }
    }

    /**
     * ReentrantLock, one thread.
     *
     * @return the counter
     */
    @Benchmark
    public long reentrantLockUncontended() {
        reentrantLock.lock();
        try {
            return ++guarded;
        } finally {
            reentrantLock.unlock();
        }
    }

    /**
     * synchronized, one thread.
     *
     * @return the counter
     */
    @Benchmark
    public long synchronizedUncontended() {
        synchronized (monitor) {
            return ++guarded;
        }
    }

    /**
     * Mutex, two threads.
     *
     * @return the counter
     */
    @Benchmark
    @Group("mutexContended")
    @GroupThreads(2)
    public long mutexContended() {
        return mutexUncontended();
    }

    /**
     * ReentrantLock, two threads.
     *
     * @return the counter
     */
    @Benchmark
    @Group("reentrantLockContended")
    @GroupThreads(2)
    public long reentrantLockContended() {
        return reentrantLockUncontended();
    }

    /**
     * synchronized, two threads.
     *
     * @return the counter
     */
    @Benchmark
    @Group("synchronizedContended")
    @GroupThreads(2)
    public long synchronizedContended() {
        return synchronizedUncontended();
    }

    /**
     * Int32Atomic.add, one thread.
     *
     * @return the value before
     */
    @Benchmark
    public int int32AtomicAdd() {
        return int32Atomic.add(1);
    }

    /**
     * AtomicInteger.getAndAdd, one thread.
     *
     * @return the value before
     */
    @Benchmark
    public int atomicIntegerAdd() {
        return atomicInteger.getAndAdd(1);
    }

    /**
     * Int64Atomic.add, one thread.
     *
     * @return the value before
     */
    @Benchmark
    public long int64AtomicAdd() {
        return int64Atomic.add(1);
    }

    /**
     * AtomicLong.getAndAdd, one thread.
     *
     * @return the value before
     */
    @Benchmark
    public long atomicLongAdd() {
        return atomicLong.getAndAdd(1);
    }

    /**
     * Int32Atomic.add, two threads.
     *
     * @return the value before
     */
    @Benchmark
    @Group("int32AtomicAddContended")
    @GroupThreads(2)
    public int int32AtomicAddContended() {
        return int32Atomic.add(1);
    }

    /**
     * AtomicInteger.getAndAdd, two threads.
     *
     * @return the value before
     */
    @Benchmark
    @Group("atomicIntegerAddContended")
    @GroupThreads(2)
    public int atomicIntegerAddContended() {
        return atomicInteger.getAndAdd(1);
    }

    /**
     * Struct.load: a load-load fence, one check of the segment, two plain reads and a record.
     *
     * @return the record
     */
    @Benchmark
    public Point structLoad() {
        return struct.load();
    }

    /**
     * A plain record read from a volatile field and copied.
     *
     * @return the copy
     */
    @Benchmark
    public Point recordCopyLoad() {
        Point p = plain;
        return new Point(p.x(), p.y());
    }

    /** Struct.store of a new record. */
    @Benchmark
    public void structStore() {
        int n = next++;
        struct.store(new Point(n, n));
    }

    /** A new plain record written to a volatile field. */
    @Benchmark
    public void recordCopyStore() {
        int n = next++;
        plain = new Point(n, n);
    }

    /**
     * Int32Atomic.wake with nobody waiting: what every notify costs (the registry's count, and the
     * test for memory that other processes map).
     *
     * @return how many were woken, for JMH to consume
     */
    @Benchmark
    public int int32AtomicWakeNobody() {
        return int32Atomic.wake();
    }

    /**
     * Allocating an int32Atomic with shared(…): its own cache line from the GC-managed arena.
     *
     * @return the value, for JMH to consume
     */
    @Benchmark
    public Int32Atomic allocateInt32Atomic() {
        return shared(Shared.int32Atomic);
    }
}
