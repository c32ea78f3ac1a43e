package dev.moroutine.bench;

import static dev.moroutine.Moroutine.workers;

import dev.moroutine.Pool;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;

/**
 * One system under test, named by a benchmark's {@code system} parameter: a way to submit the
 * {@link Noop} task without waiting, and a way to submit it and wait, each in the system's own idiom.
 *
 * <p>JMH runs every parameter value in its own forked JVM, so each call site here sees a single
 * implementation and the indirection inlines away.
 */
public abstract sealed class Dispatcher implements AutoCloseable {

    /** {@code workers(n)}: {@code pool.submit(noop.call())}, and {@code pool.run(noop.call())} to wait. */
    public static final String MOROUTINE = "moroutine";
    /** The moroutine's own dedicated worker: {@code noop.call().future()} and {@code noop.call().join()}. */
    public static final String MOROUTINE_DEDICATED = "moroutine-dedicated";
    /** {@code Executors.newFixedThreadPool(n)}: {@code submit(callable)}, {@code get()}. */
    public static final String THREAD_POOL_EXECUTOR = "ThreadPoolExecutor";
    /** {@code new ForkJoinPool(n)}: {@code submit(callable)}, {@code get()}. */
    public static final String FORK_JOIN_POOL = "ForkJoinPool";
    /** {@code CompletableFuture.supplyAsync(supplier, new ForkJoinPool(n))}, {@code join()}. */
    public static final String COMPLETABLE_FUTURE = "CompletableFuture";
    /**
     * {@code Executors.newVirtualThreadPerTaskExecutor()}: a new virtual thread per task, on the
     * JDK's default scheduler (one carrier per CPU); the worker count does not apply.
     */
    public static final String VIRTUAL_THREADS = "VirtualThreads";

    /**
     * Makes the named system with {@code threads} worker threads.
     *
     * @param system one of the constants of this class
     * @param threads the number of worker threads (ignored by virtual threads; must be 1 for the
     *     dedicated worker)
     * @return the dispatcher, to be closed after the trial
     * @throws IllegalArgumentException for an unknown system, or a dedicated worker with {@code threads != 1}
     */
    public static Dispatcher create(String system, int threads) {
        return switch (system) {
            case MOROUTINE -> new MoroutinePool(threads);
            case MOROUTINE_DEDICATED -> {
                if (threads != 1) {
                    throw new IllegalArgumentException("a moroutine's dedicated worker is one thread, not " + threads);
                }
                yield new MoroutineDedicated();
            }
            case THREAD_POOL_EXECUTOR -> new Executor(Executors.newFixedThreadPool(threads));
            case FORK_JOIN_POOL -> new Executor(new ForkJoinPool(threads));
            case COMPLETABLE_FUTURE -> new SupplyAsync(new ForkJoinPool(threads));
            case VIRTUAL_THREADS -> new Executor(Executors.newVirtualThreadPerTaskExecutor());
            case ProcessPeers.ISOLATED -> new OtherProcesses(new ProcessPeers.IsolatedDispatcher(threads));
            case ProcessPeers.PIPE -> new OtherProcesses(new ProcessPeers.PipeDispatcher(threads));
            default -> throw new IllegalArgumentException("unknown system \"" + system + "\"");
        };
    }

    /**
     * Submits one noop task without waiting.
     *
     * @return its future
     */
    public abstract Future<Integer> submit();

    /**
     * Submits one noop task and waits for it, the way the system is meant to be waited on.
     *
     * @return the task's result, 1
     * @throws Exception if the wait fails
     */
    public abstract Integer call() throws Exception;

    /** Stops the system's threads, waiting for queued tasks. */
    @Override
    public abstract void close();

    private static final class MoroutinePool extends Dispatcher {
        private final Pool pool;

        MoroutinePool(int threads) {
            pool = workers(threads);
        }

        @Override
        public Future<Integer> submit() {
            return pool.submit(Noop.noop.call());
        }

        @Override
        public Integer call() {
            return pool.run(Noop.noop.call());
        }

        @Override
        public void close() {
            pool.close();
        }
    }

    private static final class MoroutineDedicated extends Dispatcher {
        @Override
        public Future<Integer> submit() {
            return Noop.noop.call().future();
        }

        @Override
        public Integer call() {
            return Noop.noop.call().join();
        }

        @Override
        public void close() {
            // The dedicated worker lives as long as the JVM.
        }
    }

    private static final class Executor extends Dispatcher {
        private final ExecutorService executor;

        Executor(ExecutorService executor) {
            this.executor = executor;
        }

        @Override
        public Future<Integer> submit() {
            return executor.submit(Noop.CALLABLE);
        }

        @Override
        public Integer call() throws Exception {
            return executor.submit(Noop.CALLABLE).get();
        }

        @Override
        public void close() {
            executor.close();
        }
    }

    private static final class SupplyAsync extends Dispatcher {
        private final ForkJoinPool pool;

        SupplyAsync(ForkJoinPool pool) {
            this.pool = pool;
        }

        @Override
        public Future<Integer> submit() {
            return CompletableFuture.supplyAsync(Noop.SUPPLIER, pool);
        }

        @Override
        public Integer call() {
            return CompletableFuture.supplyAsync(Noop.SUPPLIER, pool).join();
        }

        @Override
        public void close() {
            pool.close();
        }
    }

    /** Workers in other processes: see {@link ProcessPeers}. */
    private static final class OtherProcesses extends Dispatcher {
        private final ProcessPeers.Tasks tasks;

        OtherProcesses(ProcessPeers.Tasks tasks) {
            this.tasks = tasks;
        }

        @Override
        public Future<Integer> submit() {
            return tasks.submit();
        }

        @Override
        public Integer call() throws Exception {
            return tasks.call();
        }

        @Override
        public void close() {
            tasks.close();
        }
    }
}
