package dev.moroutine.internal.contract;

import static dev.moroutine.Moroutine.assign;
import static dev.moroutine.Moroutine.leastBusy;
import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.Moroutine.roundRobin;
import static dev.moroutine.stream.Streaming.channel;
import static dev.moroutine.stream.Streaming.streaming;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Balancer;
import dev.moroutine.Mo0;
import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import dev.moroutine.Mo3;
import dev.moroutine.Pool;
import dev.moroutine.Task;
import dev.moroutine.TaskFailedException;
import dev.moroutine.WorkerHandle;
import dev.moroutine.internal.call.Call;
import dev.moroutine.internal.call.WorkerPool;
import dev.moroutine.internal.dispatch.Execution;
import dev.moroutine.internal.dispatch.ManualWorker;
import dev.moroutine.internal.dispatch.Worker;
import dev.moroutine.stream.Channel;
import dev.moroutine.stream.LiveStream;
import dev.moroutine.stream.StreamMo1;
import dev.moroutine.stream.StreamTask;
import dev.moroutine.stream.Streaming;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract of a worker backend as the pool, its balancers, task-args, streams and shutdown rely
 * on it: every test here runs once per backend, through a subclass that says how to drive it. The
 * thread backend runs tasks by itself, so its subclass only waits; the manual backend runs them only
 * when asked, so its subclass runs them (and makes blocking calls on another thread meanwhile).
 * Results, messages and placements must be the same on both.
 */
@Timeout(60)
abstract class PoolContract {

    /** How long a test waits for anything. */
    static final Duration WAIT = Duration.ofSeconds(30);
    /** Above every stream's length here, so a producer that runs before its consumer never blocks. */
    static final int HIGH_WATER_MARK = 16;

    static final Mo1<Integer, Integer> square = mo(x -> x * x);
    static final Mo1<Integer, Integer> plusOne = mo(x -> x + 1);
    static final Mo1<String, Integer> fail = mo(message -> {
        throw new IllegalStateException(message);
    });
    static final Mo0<String> whereAmI = mo(PoolContract::currentWorker);
    static final Mo2<CountDownLatch, CountDownLatch, Boolean> hold = mo((started, gate) -> {
        started.countDown();
        return gate.await(WAIT.toSeconds(), TimeUnit.SECONDS);
    });
    static final Mo1<Ledger, Resource> open = mo(ledger -> {
        Resource resource = new Resource(ledger.opened().incrementAndGet());
        ledger.resources().add(resource);
        return resource;
    });
    static final Mo1<Resource, Integer> idOf = mo(resource -> resource.id);
    static final Mo2<AtomicInteger, Integer, Integer> flaky = mo((attempts, failures) -> {
        int attempt = attempts.incrementAndGet();
        if (attempt <= failures) {
            throw new IllegalStateException("attempt " + attempt + " failed");
        }
        return attempt;
    });
    static final StreamMo1<Integer, Integer> upTo = streaming(n -> IntStream.range(0, n).boxed());
    static final Mo2<Runnable, Stream<Integer>, Integer> sumAfter = mo((before, items) -> {
        before.run();
        return items.mapToInt(Integer::intValue).sum();
    });
    static final Mo1<Iterable<Integer>, List<Integer>> collect = mo(items -> {
        List<Integer> all = new ArrayList<>();
        items.forEach(all::add);
        return all;
    });
    static final Mo2<Pool, List<Task<Integer>>, Integer> runInside = mo((pool, inner) -> pool.run(inner.getFirst()));
    static final Mo3<CountDownLatch, Pool, AtomicBoolean, Integer> terminateOwnPool = mo((gate, pool, sawInterrupt) -> {
        assertTrue(gate.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        pool.terminate();
        sawInterrupt.set(Thread.currentThread().isInterrupted());
        return 1;
    });
    static final Mo0<Boolean> waitForInterrupt = mo(() -> new CountDownLatch(1).await(WAIT.toSeconds(), TimeUnit.SECONDS));
    static final Mo0<Boolean> interrupted = mo(() -> Thread.currentThread().isInterrupted());

    /** A task-arg value that knows whether its worker closed it. */
    static final class Resource implements AutoCloseable {
        final int id;
        volatile boolean closed;

        Resource(int id) {
            this.id = id;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** The resources a test's task-arg opened, counted. */
    record Ledger(AtomicInteger opened, Queue<Resource> resources) {
        Ledger() {
            this(new AtomicInteger(), new ConcurrentLinkedQueue<>());
        }
    }

    /** Opens a gate, in try-with-resources, before the pool closes: a task held by it must not hold close(). */
    @FunctionalInterface
    interface Release extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Makes a pool of this backend.
     *
     * @param size its number of workers
     * @param balancer its balancer
     * @return the pool, with stream high-water mark {@link #HIGH_WATER_MARK} and no timeouts
     */
    abstract WorkerPool pool(int size, Balancer balancer);

    /**
     * Makes a call that blocks until workers have run tasks ({@code pool.run}, {@code runAll}),
     * driving the backend meanwhile, and returns its result or throws what it threw.
     */
    abstract <T> T blocking(Callable<T> call) throws Exception;

    /** Waits until a submitted task's future is complete, driving the backend meanwhile. */
    abstract void awaitDone(CompletableFuture<?> future) throws Exception;

    /** Lets the tasks accepted so far run, before a test reads what they produce. */
    abstract void runQueued();

    /** What a task runs before it waits for a task on another worker, so that that task can run. */
    abstract Runnable letOtherWorkersRun();

    /** Waits until a task that holds its worker has started, so that the tasks sent after it queue behind it. */
    abstract void awaitHolding(CountDownLatch started) throws InterruptedException;

    /** The worker running the calling task: a thread worker's thread has its name; a manual worker says. */
    private static String currentWorker() {
        ManualWorker manual = ManualWorker.current();
        return manual != null ? manual.name() : Thread.currentThread().getName();
    }

    private <T> T await(CompletableFuture<T> future) throws Exception {
        awaitDone(future);
        return future.get();
    }

    static String nameOf(Pool pool) {
        return pool.workers().getFirst().name().replaceFirst("-worker-0$", "");
    }

    static List<Integer> activeCounts(Pool pool) {
        return pool.workers().stream().map(WorkerHandle::activeCount).toList();
    }

    /** The exception a completed future was cancelled with. */
    static CancellationException cancellation(CompletableFuture<?> future) {
        assertTrue(future.isCancelled(), () -> future + " was not cancelled");
        return (CancellationException) future.handle((result, failure) -> failure).join();
    }

    @Test
    void runSubmitAndRunAllGiveTheResultsInTheOrderOfTheTasks() throws Exception {
        try (WorkerPool pool = pool(3, roundRobin())) {
            assertEquals(49, blocking(() -> pool.run(square.call(7))));
            assertEquals(64, await(pool.submit(square.call(8))));
            List<Task<Integer>> tasks = IntStream.range(0, 10).mapToObj(x -> square.call(x)).toList();
            assertEquals(IntStream.range(0, 10).map(x -> x * x).boxed().toList(), blocking(() -> pool.runAll(tasks)));
        }
    }

    @Test
    void aTaskThatThrowsFailsItsCallerWithTheCause() throws Exception {
        try (WorkerPool pool = pool(2, roundRobin())) {
            Task<Integer> boom = fail.call("boom");
            TaskFailedException failed = assertThrows(TaskFailedException.class, () -> blocking(() -> pool.run(boom)));
            assertEquals(boom + " failed: java.lang.IllegalStateException: boom", failed.getMessage());
            ExecutionException viaFuture = assertThrows(ExecutionException.class, () -> await(pool.submit(fail.call("bang"))));
            assertEquals("bang", assertInstanceOf(IllegalStateException.class, viaFuture.getCause()).getMessage());
        }
    }

    @Test
    void roundRobinSendsEachTaskToTheNextWorkerInIndexOrder() throws Exception {
        try (WorkerPool pool = pool(3, roundRobin())) {
            List<String> names = pool.workers().stream().map(WorkerHandle::name).toList();
            // Where each is sent (where it runs, an idle worker may take it from a busy one).
            List<String> where = IntStream.range(0, 7).mapToObj(i -> pool.workerFor(whereAmI.call()).name()).toList();
            assertEquals(List.of(names.get(0), names.get(1), names.get(2), names.get(0), names.get(1), names.get(2),
                    names.get(0)), where);
        }
    }

    @Test
    void leastBusyPicksTheWorkerWithTheFewestActiveTasksAndRotatesTies() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        try (WorkerPool pool = pool(3, leastBusy()); Release _ = gate::countDown) {
            List<WorkerHandle> workers = pool.workers();
            List<WorkerHandle> idle = IntStream.range(0, 4).mapToObj(i -> pool.workerFor(square.call(1))).toList();
            assertEquals(List.of(workers.get(0), workers.get(1), workers.get(2), workers.get(0)), idle, "ties rotate");

            List<CompletableFuture<Boolean>> held = new ArrayList<>();
            for (int worker : new int[] {0, 0, 2}) {
                held.add(pool.submit(assign(workers.get(worker), hold.call(new CountDownLatch(1), gate))));
            }
            assertEquals(List.of(2, 0, 1), activeCounts(pool));
            assertSame(workers.get(1), pool.workerFor(square.call(1)));
            held.add(pool.submit(hold.call(new CountDownLatch(1), gate)));
            assertEquals(List.of(2, 1, 1), activeCounts(pool), "the unassigned task went to the idle worker");
            Set<WorkerHandle> tied = Set.copyOf(IntStream.range(0, 3).mapToObj(i -> pool.workerFor(square.call(1))).toList());
            assertEquals(Set.of(workers.get(1), workers.get(2)), tied, "ties between the least busy rotate");

            gate.countDown();
            for (CompletableFuture<Boolean> task : held) {
                assertTrue(await(task));
            }
            assertEquals(List.of(0, 0, 0), activeCounts(pool), "a completed task is no longer active");
        }
    }

    @Test
    void anAssignedTaskRunsOnItsWorkerAndOnlyInItsOwnPool() throws Exception {
        try (WorkerPool pool = pool(3, roundRobin()); WorkerPool other = pool(1, roundRobin())) {
            WorkerHandle last = pool.workers().get(2);
            assertEquals(Collections.nCopies(4, last.name()),
                    blocking(() -> pool.runAll(Collections.nCopies(4, assign(last, whereAmI.call())))));
            Task<String> elsewhere = assign(other.workers().getFirst(), whereAmI.call());
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> pool.submit(elsewhere));
            assertEquals(elsewhere + " belongs to " + other + ", not to " + nameOf(pool)
                    + "; assign it to one of this pool's workers()", refused.getMessage());
        }
    }

    @Test
    void aBalancerThatReturnsAHandleOfAnotherPoolIsRefusedWithItsMessage() {
        try (WorkerPool other = pool(1, roundRobin())) {
            WorkerHandle foreign = other.workers().getFirst();
            Balancer wrong = new Balancer() {
                @Override
                public WorkerHandle select(List<WorkerHandle> workers, Task<?> task) {
                    return foreign;
                }

                @Override
                public String toString() {
                    return "wrong";
                }
            };
            try (WorkerPool pool = pool(2, wrong)) {
                IllegalStateException refused = assertThrows(IllegalStateException.class, () -> pool.submit(square.call(2)));
                assertEquals("balancer wrong returned " + foreign + ", which is not a worker of " + nameOf(pool)
                        + "; a balancer must return one of the handles it is given", refused.getMessage());
                assertEquals(List.of(0, 0), activeCounts(pool));
                assertEquals(0, foreign.activeCount(), "nothing was sent to the foreign worker");
            }
        }
    }

    @Test
    void aTaskArgIsResolvedOncePerWorkerAndItsValueClosedWhenTheWorkerStops() throws Exception {
        Ledger ledger = new Ledger();
        Task<Resource> db = open.call(ledger);
        try (WorkerPool pool = pool(2, roundRobin())) {
            List<Task<Integer>> uses = new ArrayList<>();
            for (WorkerHandle worker : pool.workers()) {
                uses.addAll(Collections.nCopies(3, assign(worker, idOf.call(db))));
            }
            List<Integer> ids = blocking(() -> pool.runAll(uses));
            assertEquals(2, ledger.opened().get(), "one resolution per worker");
            assertEquals(Collections.nCopies(3, ids.get(0)), ids.subList(0, 3), "cached on the first worker");
            assertEquals(Collections.nCopies(3, ids.get(3)), ids.subList(3, 6), "cached on the second worker");
            assertEquals(Set.of(1, 2), Set.of(ids.get(0), ids.get(3)));
            assertTrue(ledger.resources().stream().noneMatch(resource -> resource.closed), "open while the workers run");
        }
        assertEquals(2, ledger.resources().size());
        assertTrue(ledger.resources().stream().allMatch(resource -> resource.closed), "closed when the workers stopped");
    }

    @Test
    void aFailedTaskArgIsNotCachedSoTheNextTaskThatNeedsItTriesAgain() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        Task<Integer> flakyArg = flaky.call(attempts, 1);
        try (WorkerPool pool = pool(1, roundRobin())) {
            Task<Integer> first = plusOne.call(flakyArg);
            TaskFailedException failed = assertThrows(TaskFailedException.class, () -> blocking(() -> pool.run(first)));
            assertEquals("task-arg " + flakyArg + " failed on " + pool.workers().getFirst().name() + ", so " + first
                    + " did not run: java.lang.IllegalStateException: attempt 1 failed",
                    assertInstanceOf(TaskFailedException.class, failed.getCause()).getMessage());
            assertEquals(3, blocking(() -> pool.run(plusOne.call(flakyArg))), "resolved again: attempt 2, plus one");
            assertEquals(3, blocking(() -> pool.run(plusOne.call(flakyArg))), "then cached");
            assertEquals(2, attempts.get());
        }
    }

    @Test
    void aStreamTasksItemsReachTheCallerInOrder() throws Exception {
        try (WorkerPool pool = pool(2, roundRobin()); LiveStream<Integer> items = pool.run(upTo.call(10))) {
            runQueued();
            assertEquals(IntStream.range(0, 10).boxed().toList(), blocking(items::toList));
        }
    }

    @Test
    void aStreamTaskGivenToAConsumerTaskIsPipedIntoIt() throws Exception {
        try (WorkerPool pool = pool(2, roundRobin())) {
            StreamTask<Integer> producer = Streaming.assign(pool.workers().get(1), upTo.call(10));
            Task<Integer> consumer = assign(pool.workers().get(0), sumAfter.call(letOtherWorkersRun(), producer));
            assertEquals(45, blocking(() -> pool.run(consumer)));
        }
    }

    @Test
    void aChannelGivesEachItemToExactlyOneOfItsConsumerTasks() throws Exception {
        List<Integer> sent = IntStream.range(0, 200).boxed().toList();
        Channel<Integer> items = channel(sent);
        try (WorkerPool pool = pool(2, roundRobin())) {
            List<Task<List<Integer>>> consumers = List.of(
                    assign(pool.workers().get(0), collect.call(items)), assign(pool.workers().get(1), collect.call(items)));
            List<List<Integer>> parts = blocking(() -> pool.runAll(consumers));
            assertEquals(sent, parts.stream().flatMap(List::stream).sorted().toList());
        }
    }

    @Test
    void mapRunsTheTasksAFewAtATimeAndStreamsEveryResult() throws Exception {
        try (WorkerPool pool = pool(2, roundRobin())) {
            List<Task<Integer>> tasks = IntStream.range(0, 20).mapToObj(x -> square.call(x)).toList();
            List<Integer> results = blocking(() -> {
                try (LiveStream<Integer> mapped = Streaming.map(pool, tasks, 3)) {
                    return mapped.sorted().toList();
                }
            });
            assertEquals(IntStream.range(0, 20).map(x -> x * x).sorted().boxed().toList(), results);
        }
    }

    @Test
    void theExecutorServiceViewRunsCallablesOnTheWorkersAndTerminatesWithThem() throws Exception {
        try (WorkerPool pool = pool(2, roundRobin())) {
            ExecutorService view = pool.asExecutorService();
            Future<String> where = view.submit(PoolContract::currentWorker);
            String ranOn = blocking(where::get);
            assertTrue(pool.workers().stream().anyMatch(worker -> worker.name().equals(ranOn)), ranOn);
            view.shutdown();
            assertTrue(blocking(() -> view.awaitTermination(WAIT.toSeconds(), TimeUnit.SECONDS)));
        }
    }

    @Test
    void closeRunsTheAcceptedTasksThenRefusesNewOnesSayingWhy() {
        WorkerPool pool = pool(2, roundRobin());
        CompletableFuture<Integer> first = pool.submit(square.call(3));
        CompletableFuture<Integer> second = pool.submit(square.call(4));
        pool.close();
        assertEquals(9, first.getNow(null), "close() returns once the accepted tasks ran");
        assertEquals(16, second.getNow(null));
        assertEquals(List.of(0, 0), activeCounts(pool));
        assertTrue(pool.workers().stream().allMatch(worker -> ((Worker) worker).isStopped()));
        Task<Integer> late = square.call(5);
        RejectedExecutionException refused = assertThrows(RejectedExecutionException.class, () -> pool.submit(late));
        assertEquals(nameOf(pool) + " is closed, so it cannot run " + late
                + "; submit tasks before close(), or make a new pool with workers(n)", refused.getMessage());
    }

    @Test
    void terminateCancelsTheQueuedTasksSayingWhy() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        try (WorkerPool pool = pool(1, roundRobin()); Release _ = gate::countDown) {
            CompletableFuture<Boolean> holding = pool.submit(hold.call(started, gate));
            awaitHolding(started);
            Task<Integer> behind = square.call(3);
            CompletableFuture<Integer> queued = pool.submit(behind);
            pool.terminate();
            assertEquals(nameOf(pool) + " was terminated before this task started (" + behind + ")",
                    cancellation(queued).getMessage());
            assertTrue(holding.isCancelled());
            assertTrue(((Worker) pool.workers().getFirst()).awaitStopped(WAIT.toSeconds(), TimeUnit.SECONDS));
            assertEquals(0, pool.workers().getFirst().activeCount());
        }
    }

    @Test
    void aTaskThatTerminatesItsOwnPoolIsCancelledAndInterruptedAndTheTaskBehindItIsCancelled() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        AtomicBoolean sawInterrupt = new AtomicBoolean();
        try (WorkerPool pool = pool(1, roundRobin()); Release _ = gate::countDown) {
            Task<Integer> terminating = terminateOwnPool.call(gate, pool, sawInterrupt);
            CompletableFuture<Integer> running = pool.submit(terminating);
            Task<Integer> behind = square.call(3);
            CompletableFuture<Integer> queued = pool.submit(behind);
            gate.countDown();
            awaitDone(running);
            // The terminating task's own future completes first; the rest is done once its worker has stopped.
            assertTrue(((Worker) pool.workers().getFirst()).awaitStopped(WAIT.toSeconds(), TimeUnit.SECONDS));
            String name = nameOf(pool);
            assertEquals(name + " was terminated while this task was running; it was interrupted (" + terminating + ")",
                    cancellation(running).getMessage());
            assertEquals(name + " was terminated before this task started (" + behind + ")", cancellation(queued).getMessage());
            assertTrue(sawInterrupt.get(), "the running task was interrupted");
            assertFalse(Thread.currentThread().isInterrupted(), "the interrupt went to that run only");
        }
    }

    @Test
    void closeAndTerminateFireThePoolsSignal() {
        WorkerPool closed = pool(1, roundRobin());
        AtomicInteger fired = new AtomicInteger();
        closed.signal().onAbort(fired::incrementAndGet);
        assertFalse(closed.signal().aborted());
        closed.close();
        assertEquals(nameOf(closed) + " is closing", closed.signal().reason());
        assertEquals(1, fired.get());

        WorkerPool terminated = pool(1, roundRobin());
        terminated.terminate();
        assertEquals(nameOf(terminated) + " was terminated", terminated.signal().reason());
    }

    @Test
    void aTaskThatWaitsForATaskQueuedBehindItOnItsOwnWorkerIsRefused() throws Exception {
        try (WorkerPool pool = pool(2, roundRobin())) {
            WorkerHandle worker = pool.workers().getFirst();
            Task<Integer> inner = assign(worker, square.call(2));
            Task<Integer> outer = assign(worker, runInside.call(pool, List.of(inner)));
            TaskFailedException failed = assertThrows(TaskFailedException.class, () -> blocking(() -> pool.run(outer)));
            assertTrue(assertInstanceOf(IllegalStateException.class, failed.getCause()).getMessage().endsWith(
                    " waited for " + inner + ", which is queued behind the task it is running, on the same worker: it"
                    + " would wait for itself. Use future() without blocking, or run the inner task on another worker"
                    + " or pool"), failed.getCause()::getMessage);
        }
    }

    @Test
    void aTaskOverItsTimeoutIsInterruptedAndFailsAndTheNextTaskIsNotInterrupted() throws Exception {
        try (WorkerPool pool = pool(1, roundRobin())) {
            Task<Boolean> slow = waitForInterrupt.call().withTimeout(Duration.ofMillis(100));
            TaskFailedException failed = assertThrows(TaskFailedException.class, () -> blocking(() -> pool.run(slow)));
            assertEquals(slow + " did not finish within its timeout of PT0.1S on " + pool.workers().getFirst()
                    + ", so it was interrupted; give it more time with withTimeout(…) on the task or withTaskTimeout(…)"
                    + " on the pool", assertInstanceOf(TimeoutException.class, failed.getCause()).getMessage());
            assertFalse(blocking(() -> pool.run(interrupted.call())));
            assertFalse(Thread.currentThread().isInterrupted());
        }
    }

    /** The seam itself, below the pool (which refuses a task before its workers can). */
    @Test
    void aDrainedWorkerRefusesADispatchSayingWhyAndStopsOnceItsAcceptedTasksRan() throws Exception {
        try (WorkerPool pool = pool(1, roundRobin())) {
            Worker worker = (Worker) pool.workers().getFirst();
            Execution<Integer> accepted = new Execution<>(Call.of(square.call(3)), null);
            worker.dispatch(accepted);
            worker.drain("drained by the test");
            Call<Integer> late = Call.of(square.call(4));
            RejectedExecutionException refused = assertThrows(RejectedExecutionException.class,
                    () -> worker.dispatch(new Execution<>(late, null)));
            assertEquals("drained by the test; " + late + " was not queued", refused.getMessage());
            assertTrue(worker.awaitStopped(WAIT.toSeconds(), TimeUnit.SECONDS));
            assertEquals(9, accepted.getNow(null));
            assertEquals(0, worker.activeCount());
        }
    }
}
