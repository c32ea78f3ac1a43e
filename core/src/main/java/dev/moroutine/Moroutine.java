package dev.moroutine;

import dev.moroutine.internal.call.Balancers;
import dev.moroutine.internal.call.Definition;
import dev.moroutine.internal.dispatch.IdleTimeout;
import dev.moroutine.internal.call.Call;
import dev.moroutine.internal.call.WorkerPool;
import java.time.Duration;
import java.util.Objects;

/**
 * The entry points: define moroutines with {@code mo(…)}, make pools with {@code workers(…)}, and
 * place tasks with the balancers and {@link #assign}. Meant to be imported statically:
 *
 * <pre>{@code
 * import static dev.moroutine.Moroutine.*;
 *
 * public final class Primes {
 *     public static final Mo1<Long, Boolean> isPrime = mo(n -> {
 *         if (n < 2) return false;
 *         for (long i = 2; i * i <= n; i++) if (n % i == 0) return false;
 *         return true;
 *     });
 * }
 *
 * boolean prime = Primes.isPrime.call(999_999_937L).join();   // on isPrime's dedicated worker
 * }</pre>
 *
 * <p>A moroutine must be stored in a {@code static final} field of the class that calls
 * {@code mo(…)}: its identity is that class and field, found on first use. That class's static
 * initialisation must be free of side effects, because a worker may load it to find the moroutine.
 *
 * <p>All methods are thread-safe.
 */
public final class Moroutine {

    private Moroutine() {}

    /**
     * Defines a moroutine of no arguments.
     *
     * @param body the function
     * @param <R> the result type
     * @return the moroutine; store it in a {@code static final} field
     * @throws NullPointerException if {@code body} is null
     */
    public static <R> Mo0<R> mo(Mo0.Body<R> body) {
        return new Mo0<>(Objects.requireNonNull(body, "body"), callSite());
    }

    /**
     * Defines a moroutine of one argument.
     *
     * @param body the function
     * @param <A> the argument type
     * @param <R> the result type
     * @return the moroutine; store it in a {@code static final} field
     * @throws NullPointerException if {@code body} is null
     */
    public static <A, R> Mo1<A, R> mo(Mo1.Body<A, R> body) {
        return new Mo1<>(Objects.requireNonNull(body, "body"), callSite());
    }

    /**
     * Defines a moroutine of two arguments.
     *
     * @param body the function
     * @param <A> the first argument's type
     * @param <B> the second argument's type
     * @param <R> the result type
     * @return the moroutine; store it in a {@code static final} field
     * @throws NullPointerException if {@code body} is null
     */
    public static <A, B, R> Mo2<A, B, R> mo(Mo2.Body<A, B, R> body) {
        return new Mo2<>(Objects.requireNonNull(body, "body"), callSite());
    }

    /**
     * Defines a moroutine of three arguments.
     *
     * @param body the function
     * @param <A> the first argument's type
     * @param <B> the second argument's type
     * @param <C> the third argument's type
     * @param <R> the result type
     * @return the moroutine; store it in a {@code static final} field
     * @throws NullPointerException if {@code body} is null
     */
    public static <A, B, C, R> Mo3<A, B, C, R> mo(Mo3.Body<A, B, C, R> body) {
        return new Mo3<>(Objects.requireNonNull(body, "body"), callSite());
    }

    /**
     * Defines a moroutine of four arguments.
     *
     * @param body the function
     * @param <A> the first argument's type
     * @param <B> the second argument's type
     * @param <C> the third argument's type
     * @param <D> the fourth argument's type
     * @param <R> the result type
     * @return the moroutine; store it in a {@code static final} field
     * @throws NullPointerException if {@code body} is null
     */
    public static <A, B, C, D, R> Mo4<A, B, C, D, R> mo(Mo4.Body<A, B, C, D, R> body) {
        return new Mo4<>(Objects.requireNonNull(body, "body"), callSite());
    }

    /**
     * Makes a pool with one worker per available processor and the default options.
     *
     * @return the pool; close it with try-with-resources
     */
    public static Pool workers() {
        return workers(Runtime.getRuntime().availableProcessors());
    }

    /**
     * Makes a pool of {@code size} workers with the default options (round robin, no shutdown timeout).
     *
     * @param size the number of worker threads
     * @return the pool; close it with try-with-resources
     * @throws IllegalArgumentException if {@code size} is less than 1
     */
    public static Pool workers(int size) {
        return workers(size, PoolOptions.defaults());
    }

    /**
     * Makes a pool of {@code size} workers. The worker threads start at once.
     *
     * @param size the number of worker threads
     * @param options balancer, shutdown timeout, thread names, stream high-water mark and task timeout
     * @return the pool; close it with try-with-resources
     * @throws IllegalArgumentException if {@code size} is less than 1
     * @throws NullPointerException if {@code options} is null
     */
    public static Pool workers(int size, PoolOptions options) {
        Objects.requireNonNull(options, "options");
        if (size < 1) {
            throw new IllegalArgumentException("a pool needs at least 1 worker, was asked for " + size);
        }
        return new WorkerPool(size, options.balancer(), options.shutdownTimeout().orElse(null),
                options.threadNamePrefix().orElse(null), options.highWaterMark(), options.taskTimeout().orElse(null), WorkerPool.THREADS);
    }

    /**
     * Round robin: each task goes to the next worker in index order. Ignores load. The default.
     * As with {@link #leastBusy()}, an idle worker of the pool may take a task that waits at a
     * worker which has finished nothing since it last looked (a long task, a thread that does not
     * run): each task runs once, on one worker or the other.
     *
     * @return a new balancer
     */
    public static Balancer roundRobin() {
        return Balancers.roundRobin();
    }

    /**
     * Least busy: each task goes to the worker with the fewest {@linkplain WorkerHandle#activeCount()
     * in-flight tasks}. Ties are broken by a rotating offset, so idle workers take turns instead of
     * worker 0 taking every task. It counts tasks, not their cost: a burst submitted faster than
     * tasks finish is spread like round robin; it pays off when tasks are submitted as others finish
     * (a bounded window, {@link Pool#run} from several threads) or when some workers are stuck
     * on long tasks.
     *
     * @return a new balancer
     */
    public static Balancer leastBusy() {
        return Balancers.leastBusy();
    }

    /**
     * Pins a task to one worker of a pool: the returned task skips the balancer and runs on that
     * worker, whether it is given to the pool ({@link Pool#run}) or joined directly.
     *
     * @param worker a handle from {@link Pool#workers()}
     * @param task the task
     * @param <R> the result type
     * @return a task that runs only on {@code worker}
     * @throws IllegalArgumentException if {@code worker} is not a handle of a moroutine pool, or
     *     {@code task} was not made by a moroutine
     * @throws NullPointerException if either is null
     */
    public static <R> Task<R> assign(WorkerHandle worker, Task<R> task) {
        Objects.requireNonNull(worker, "worker");
        return Call.of(task).assignedTo(worker);
    }

    /**
     * Whether {@code task} is a call of {@code moroutine}. In a {@link Balancer}, follow it with the
     * moroutine's {@code args(task)} for typed access to the arguments:
     *
     * <pre>{@code
     * if (isTask(increment, task)) {
     *     String key = increment.args(task).first();
     *     return workers.get(Math.floorMod(key.hashCode(), workers.size()));
     * }
     * }</pre>
     *
     * @param moroutine the moroutine
     * @param task any task
     * @return {@code true} if {@code task} was made by {@code moroutine.call(…)}
     * @throws NullPointerException if either is null
     */
    public static boolean isTask(Mo moroutine, Task<?> task) {
        Objects.requireNonNull(moroutine, "moroutine");
        Objects.requireNonNull(task, "task");
        return task instanceof Call<?> call && call.moroutine() == moroutine;
    }

    /**
     * Sets how long the thread of a moroutine's dedicated worker may stay idle before it stops.
     * A stopped thread closes its cached {@link AutoCloseable} task-arg values, and the next
     * {@link Task#join()} or {@link Task#future()} of that moroutine starts a new thread (named
     * {@code …#n}), which resolves task-args afresh; a call that arrives while the thread is
     * stopping runs on it or on the new one, never lost. Pool workers are not affected: they live
     * until their pool closes.
     *
     * <p>One setting for the whole process, because dedicated workers belong to {@code static final}
     * moroutines rather than to anything a caller configures. It starts as the system property
     * {@code moroutine.dedicated.idleTimeout} (an ISO-8601 duration, {@code -Dmoroutine.dedicated.idleTimeout=PT5M})
     * or 60 seconds, like {@link java.util.concurrent.Executors#newCachedThreadPool()}. A new value
     * applies to each idle thread from its next wait.
     *
     * @param timeout how long an idle thread waits for a call; {@link Duration#ZERO} stops it as
     *     soon as it finds nothing to do, and a very long duration such as
     *     {@code ChronoUnit.FOREVER.getDuration()} keeps it for the JVM's lifetime
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code timeout} is null
     */
    public static void setDedicatedIdleTimeout(Duration timeout) {
        IdleTimeout.set(timeout);
    }

    /**
     * How long the thread of a dedicated worker may stay idle before it stops: see
     * {@link #setDedicatedIdleTimeout(Duration)}.
     *
     * @return the timeout
     * @throws IllegalStateException if it was never set and the system property
     *     {@code moroutine.dedicated.idleTimeout} is not a valid, non-negative duration (the first
     *     call on a dedicated worker then throws the same)
     */
    public static Duration dedicatedIdleTimeout() {
        return IdleTimeout.get();
    }

    private static StackWalker.StackFrame callSite() {
        return Definition.callSite(Moroutine.class);
    }
}
