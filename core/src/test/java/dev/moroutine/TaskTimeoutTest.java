package dev.moroutine;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.stream.Streaming.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.stream.Emitter;
import dev.moroutine.stream.LiveStream;
import dev.moroutine.stream.StreamMo1;
import dev.moroutine.stream.StreamTask;
import dev.moroutine.testing.Stress;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issue 9.4: task timeouts, and {@code cancel(true)} on a running task, on pools and on dedicated workers. */
@Timeout(120)
class TaskTimeoutTest {

    private static final Duration SHORT = Duration.ofMillis(100);

    /**
     * Waits up to {@code millis} for an interrupt and says in {@code how} how it ended (a cancelled
     * or timed-out task's own result is lost); returns whether it found its thread interrupted at
     * its start.
     */
    static final Mo3<CountDownLatch, Long, CompletableFuture<String>, Boolean> work = mo((started, millis, how) -> {
        boolean interruptedAtStart = Thread.currentThread().isInterrupted();
        started.countDown();
        try {
            new CountDownLatch(1).await(millis, TimeUnit.MILLISECONDS);
            how.complete("finished");
        } catch (InterruptedException e) {
            how.complete("interrupted");
        }
        return interruptedAtStart;
    });
    /** Ignores interrupts; stops only when its signal fires, and reports the reason in {@code how}. */
    static final Mo3<Signal, CountDownLatch, CompletableFuture<String>, String> untilSignalled = mo((signal, started, how) -> {
        started.countDown();
        while (!signal.aborted()) {
            Thread.onSpinWait();
        }
        how.complete(signal.reason());
        return signal.reason();
    });
    /** Spins for some microseconds, ignoring interrupts; returns whether its thread was interrupted by its end. */
    static final Mo1<Integer, Boolean> spin = mo(micros -> {
        long end = System.nanoTime() + micros * 1_000L;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        return Thread.currentThread().isInterrupted();
    });
    /**
     * Ignores interrupts and returns as soon as its signal fires, while its canceller, which runs
     * the signal's actions before it interrupts, is held in an action until the worker has started
     * the next task: the worst case for an interrupt aimed at this task.
     */
    static final Mo3<Signal, CountDownLatch, CountDownLatch, Boolean> returnsOnSignal = mo((signal, started, nextStarted) -> {
        // Not closed: the action must still be there when the canceller fires. The view dies with the run.
        signal.onAbort(() -> {
            try {
                nextStarted.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        started.countDown();
        while (!signal.aborted()) {
            Thread.onSpinWait();
        }
        return false;
    });
    /** Says it started, spins until the canceller is done, and returns whether its thread was interrupted by then. */
    static final Mo2<CountDownLatch, CountDownLatch, Boolean> next = mo((started, cancellerDone) -> {
        started.countDown();
        while (cancellerDone.getCount() > 0) {
            Thread.onSpinWait();
        }
        return Thread.currentThread().isInterrupted();
    });
    static final Mo2<CountDownLatch, CountDownLatch, String> gated = mo((started, gate) -> {
        started.countDown();
        gate.await();
        return "released";
    });
    static final Mo1<Object, Integer> holds = mo(value -> System.identityHashCode(value));
    static final StreamMo1<CountDownLatch, Integer> threeThenHang = emitting((CountDownLatch never, Emitter<Integer> out) -> {
        for (int i = 0; i < 3; i++) out.emit(i);
        never.await();
    });

    // ---------------------------------------------------------------- cancel(true)

    /** Before the fix cancel(true) returned true but left the task running: the next task waited (fails 5 of 5). */
    @RepeatedTest(5)
    void cancelTrueInterruptsTheRunningTaskOnAPoolAndTheWorkerGoesOn() throws Exception {
        try (Pool pool = workers(1)) {
            CountDownLatch started = new CountDownLatch(1);
            CompletableFuture<String> how = new CompletableFuture<>();
            CompletableFuture<Boolean> running = pool.submit(work.call(started, 60_000L, how));
            CompletableFuture<Boolean> next = pool.submit(work.call(new CountDownLatch(1), 0L, new CompletableFuture<>()));
            assertTrue(started.await(10, TimeUnit.SECONDS));
            assertTrue(running.cancel(true));
            assertEquals("interrupted", how.get(10, TimeUnit.SECONDS));
            assertFalse(next.get(10, TimeUnit.SECONDS), "the interrupt must not reach the next task");
            assertTrue(running.isCancelled());
            CancellationException e = assertThrows(CancellationException.class, running::join);
            assertTrue(e.getCause().getMessage().contains("TaskTimeoutTest#work was cancelled"), e.getCause().getMessage());
        }
    }

    /** The same on a moroutine's dedicated worker (fails 5 of 5 before the fix). */
    @RepeatedTest(5)
    void cancelTrueInterruptsTheRunningTaskOnItsDedicatedWorker() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<String> how = new CompletableFuture<>();
        CompletableFuture<Boolean> running = work.call(started, 60_000L, how).future();
        CompletableFuture<Boolean> next = work.call(new CountDownLatch(1), 0L, new CompletableFuture<>()).future();
        assertTrue(started.await(10, TimeUnit.SECONDS));
        assertTrue(running.cancel(true));
        assertEquals("interrupted", how.get(10, TimeUnit.SECONDS));
        assertFalse(next.get(10, TimeUnit.SECONDS), "the interrupt must not reach the next task");
    }

    @Test
    void cancelTrueFiresTheTasksSignalButNotTheCallers() throws Exception {
        var controller = new AbortController();
        try (Pool pool = workers(1)) {
            CountDownLatch started = new CountDownLatch(1);
            CompletableFuture<String> how = new CompletableFuture<>();
            CompletableFuture<String> running = pool.submit(untilSignalled.call(controller.signal(), started, how));
            assertTrue(started.await(10, TimeUnit.SECONDS));
            assertTrue(running.cancel(true));
            assertTrue(how.get(10, TimeUnit.SECONDS).contains("TaskTimeoutTest#untilSignalled was cancelled"), how.get());
            assertFalse(controller.signal().aborted(), "other tasks may share the caller's signal");
            assertFalse(pool.run(spin.call(0)), "the worker goes on");
        }
    }

    @Test
    void terminatingAPoolFiresItsRunningTasksSignal() throws Exception {
        var controller = new AbortController();
        Pool pool = workers(1);
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<String> how = new CompletableFuture<>();
        CompletableFuture<String> running = pool.submit(untilSignalled.call(controller.signal(), started, how));
        assertTrue(started.await(10, TimeUnit.SECONDS));
        pool.terminate();
        assertTrue(how.get(10, TimeUnit.SECONDS).contains("was terminated"), how.get());
        assertTrue(running.isCancelled());
        assertFalse(controller.signal().aborted());
    }

    @Test
    void cancelFalseLetsARunningTaskFinish() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<String> how = new CompletableFuture<>();
        try (Pool pool = workers(1)) {
            CompletableFuture<Boolean> running = pool.submit(work.call(started, 200L, how));
            assertTrue(started.await(10, TimeUnit.SECONDS));
            assertTrue(running.cancel(false));
            assertTrue(running.isCancelled());
            assertEquals("finished", how.get(10, TimeUnit.SECONDS), "cancel(false) does not interrupt");
        }
    }

    /**
     * cancel(true) races the task's end (queued, running, just finished, or returning because the
     * cancel fired its signal just before the interrupt): the interrupt aimed at the task must never
     * reach the task after it on the same worker.
     */
    @Test
    void anInterruptAimedAtATaskNeverReachesTheNextOne() throws Exception {
        int rounds = Stress.scaled(2_000);
        try (Pool pool = workers(1)) {
            for (int round = 0; round < rounds; round++) {
                raceCancelAgainstTheEnd(pool.submit(spin.call(ThreadLocalRandom.current().nextInt(50))),
                        pool.submit(spin.call(NEXT_MICROS)), round);
            }
        }
        for (int round = 0; round < rounds; round++) { // on spin's dedicated worker
            raceCancelAgainstTheEnd(spin.call(ThreadLocalRandom.current().nextInt(50)).future(),
                    spin.call(NEXT_MICROS).future(), round);
        }
    }

    /** Long enough for a stray interrupt, sent while the task before was ending, to arrive while this one runs. */
    private static final int NEXT_MICROS = 200;

    /**
     * The task ends while its canceller is still at work, and the worker starts the next task
     * before the canceller would interrupt: without the hand-shake, the interrupt hits that next task.
     */
    @Test
    void aTaskThatEndsWhileItsCancellerIsStillAtWorkDoesNotPassTheInterruptOn() throws Exception {
        Signal never = new AbortController().signal();
        try (Pool pool = workers(1)) {
            for (int round = 0; round < Stress.scaled(200); round++) {
                CountDownLatch started = new CountDownLatch(1);
                CountDownLatch nextStarted = new CountDownLatch(1);
                CountDownLatch cancellerDone = new CountDownLatch(1);
                CompletableFuture<Boolean> target = pool.submit(returnsOnSignal.call(never, started, nextStarted));
                CompletableFuture<Boolean> after = pool.submit(next.call(nextStarted, cancellerDone));
                assertTrue(started.await(10, TimeUnit.SECONDS));
                assertTrue(target.cancel(true));
                cancellerDone.countDown();
                assertFalse(after.get(10, TimeUnit.SECONDS), "round " + round + ": the next task was interrupted");
            }
        }
    }

    private static void raceCancelAgainstTheEnd(CompletableFuture<Boolean> target, CompletableFuture<Boolean> next, int round)
            throws Exception {
        for (int i = ThreadLocalRandom.current().nextInt(1_000); i > 0; i--) {
            Thread.onSpinWait();
        }
        target.cancel(true);
        assertFalse(next.get(10, TimeUnit.SECONDS), "round " + round + ": the next task was interrupted");
        assertTrue(target.isDone());
    }

    // ---------------------------------------------------------------- timeouts

    @Test
    void aPoolsTaskTimeoutInterruptsTheTaskFailsItWithATimeoutAndTheWorkerGoesOn() throws Exception {
        try (Pool pool = workers(1, PoolOptions.defaults().withTaskTimeout(SHORT))) {
            CompletableFuture<String> how = new CompletableFuture<>();
            TaskFailedException e = assertThrows(TaskFailedException.class,
                    () -> pool.run(work.call(new CountDownLatch(1), 60_000L, how)));
            TimeoutException timeout = assertInstanceOf(TimeoutException.class, e.getCause());
            assertTrue(timeout.getMessage().contains("TaskTimeoutTest#work did not finish within its timeout of PT0.1S on worker 0"),
                    timeout.getMessage());
            assertTrue(timeout.getMessage().contains("withTimeout(…) on the task or withTaskTimeout(…) on the pool"),
                    timeout.getMessage());
            assertEquals("interrupted", how.get(10, TimeUnit.SECONDS));
            assertFalse(pool.run(work.call(new CountDownLatch(1), 0L, new CompletableFuture<>())),
                    "the worker goes on, without the interrupt");

            CompletableFuture<Boolean> future = pool.submit(work.call(new CountDownLatch(1), 60_000L, new CompletableFuture<>()));
            ExecutionException failed = assertThrows(ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
            assertInstanceOf(TimeoutException.class, failed.getCause());
            assertFalse(future.isCancelled(), "a timeout is a failure, as with orTimeout, not a cancellation");
        }
    }

    @Test
    void aTaskTimeoutOnADedicatedWorker() throws Exception {
        CompletableFuture<String> how = new CompletableFuture<>();
        Task<Boolean> limited = work.call(new CountDownLatch(1), 60_000L, how).withTimeout(SHORT);
        TaskFailedException e = assertThrows(TaskFailedException.class, limited::join);
        assertInstanceOf(TimeoutException.class, e.getCause());
        assertEquals("interrupted", how.get(10, TimeUnit.SECONDS));
        assertFalse(work.call(new CountDownLatch(1), 0L, new CompletableFuture<>()).join());
    }

    @Test
    void aTimeoutCountsFromTheStartOnTheWorkerNotFromTheQueue() throws Exception {
        try (Pool pool = workers(1)) {
            CompletableFuture<Boolean> first = pool.submit(work.call(new CountDownLatch(1), 300L, new CompletableFuture<>()));
            // queued behind 300 ms of work: its own 200 ms would run out if counted from here
            CompletableFuture<Boolean> queued = pool.submit(work.call(new CountDownLatch(1), 0L, new CompletableFuture<>())
                    .withTimeout(Duration.ofMillis(200)));
            assertFalse(first.get(10, TimeUnit.SECONDS));
            assertFalse(queued.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aTasksOwnTimeoutReplacesThePools() throws Exception {
        try (Pool pool = workers(2, PoolOptions.defaults().withTaskTimeout(SHORT))) {
            CountDownLatch startedLong = new CountDownLatch(1);
            CountDownLatch gate = new CountDownLatch(1);
            CompletableFuture<String> patient = pool.submit(assign(pool.workers().get(0),
                    gated.call(startedLong, gate)).withTimeout(Duration.ofMinutes(1)));
            assertTrue(startedLong.await(10, TimeUnit.SECONDS));
            // started after the patient task, on the other worker, with the pool's timeout
            CompletableFuture<Boolean> impatient = pool.submit(assign(pool.workers().get(1),
                    work.call(new CountDownLatch(1), 60_000L, new CompletableFuture<>())));
            ExecutionException e = assertThrows(ExecutionException.class, () -> impatient.get(10, TimeUnit.SECONDS));
            assertInstanceOf(TimeoutException.class, e.getCause());
            assertFalse(patient.isDone(), "its own minute replaces the pool's 100 ms");
            gate.countDown();
            assertEquals("released", patient.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aTimeoutFiresTheTasksSignalButNotTheCallers() throws Exception {
        var controller = new AbortController();
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<String> how = new CompletableFuture<>();
        TaskFailedException e = assertThrows(TaskFailedException.class,
                () -> untilSignalled.call(controller.signal(), started, how).withTimeout(SHORT).join());
        assertInstanceOf(TimeoutException.class, e.getCause());
        assertTrue(how.get(10, TimeUnit.SECONDS).contains("did not finish within its timeout of PT0.1S"), how.get());
        assertFalse(controller.signal().aborted());
    }

    /**
     * A future completed from outside while its task runs ({@code cancel(false)}, {@code orTimeout},
     * {@code complete}) must not switch the task's timeout off: before the fix, its timer found the
     * future complete and did nothing, and the task held its worker on (fails 5 of 5).
     */
    @RepeatedTest(5)
    void aTimeoutStillStopsARunWhoseFutureWasCompletedFromOutside() throws Exception {
        List<java.util.function.Consumer<CompletableFuture<Boolean>>> completions = List.of(
                future -> future.cancel(false),
                future -> future.orTimeout(1, TimeUnit.MILLISECONDS),
                future -> future.complete(true));
        try (Pool pool = workers(1, PoolOptions.defaults().withShutdownTimeout(Duration.ofSeconds(1)))) {
            for (var completion : completions) {
                CountDownLatch started = new CountDownLatch(1);
                CompletableFuture<String> how = new CompletableFuture<>();
                CompletableFuture<Boolean> running = pool.submit(work.call(started, 30_000L, how).withTimeout(SHORT));
                assertTrue(started.await(10, TimeUnit.SECONDS));
                completion.accept(running);
                assertEquals("interrupted", how.get(10, TimeUnit.SECONDS), "the timeout still stops the run");
                assertFalse(pool.run(work.call(new CountDownLatch(1), 0L, new CompletableFuture<>())),
                        "the worker goes on, without the interrupt");
            }
        }
    }

    /** The same for a pool's timeout when map's signal fires, which cancels its running tasks with cancel(false) (fails 5 of 5 before). */
    @RepeatedTest(5)
    void aPoolsTimeoutStillStopsTheTasksOfAMapWhoseSignalFired() throws Exception {
        var controller = new AbortController();
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<String> how = new CompletableFuture<>();
        try (Pool pool = workers(1, PoolOptions.defaults().withTaskTimeout(Duration.ofMillis(300))
                .withShutdownTimeout(Duration.ofSeconds(1)));
                LiveStream<Boolean> results = map(pool, List.of(work.call(started, 30_000L, how)), 1, controller.signal())) {
            Iterator<Boolean> it = results.iterator();
            CompletableFuture<Boolean> consumer = CompletableFuture.supplyAsync(it::hasNext);
            assertTrue(started.await(10, TimeUnit.SECONDS));
            controller.abort("enough");
            assertFalse(consumer.get(10, TimeUnit.SECONDS), "the map ends when its signal fires");
            assertEquals("interrupted", how.get(10, TimeUnit.SECONDS), "the pool's timeout still stops the task");
        }
    }

    @Test
    void aStreamProducerThatRunsOverItsTimeoutEndsItsStreamWithTheTimeout() {
        StreamTask<Integer> limited = threeThenHang.call(new CountDownLatch(1)).withTimeout(SHORT);
        try (LiveStream<Integer> items = limited.join()) {
            Iterator<Integer> it = items.iterator();
            List<Integer> got = new ArrayList<>();
            TaskFailedException e = assertThrows(TaskFailedException.class, () -> {
                while (it.hasNext()) got.add(it.next());
            });
            assertEquals(List.of(0, 1, 2), got, "the items emitted before the timeout arrive first");
            assertInstanceOf(TimeoutException.class, e.getCause());
        }
    }

    @Test
    void assignmentAndTimeoutAreKeptByEachOther() throws Exception {
        try (Pool pool = workers(2)) {
            WorkerHandle second = pool.workers().get(1);
            for (Task<Boolean> task : List.of(
                    assign(second, work.call(new CountDownLatch(1), 60_000L, new CompletableFuture<>())).withTimeout(SHORT),
                    assign(second, work.call(new CountDownLatch(1), 60_000L, new CompletableFuture<>()).withTimeout(SHORT)))) {
                CompletableFuture<Boolean> future = pool.submit(task);
                ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
                assertTrue(e.getCause().getMessage().contains("on worker 1"), e.getCause().getMessage());
            }
        }
    }

    /** A finished task's timer is dropped at once: it does not keep the task (and its arguments) for an hour. */
    @Test
    void aFinishedTaskLeavesNothingBehindInTheTimer() throws Exception {
        WeakReference<Object> argument = runWithALongTimeout();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (argument.get() != null && System.nanoTime() < deadline) {
            System.gc();
            Thread.onSpinWait();
        }
        assertNull(argument.get(), "the timer of a finished task still holds its arguments");
    }

    private static WeakReference<Object> runWithALongTimeout() {
        Object value = new Object();
        assertEquals(System.identityHashCode(value), holds.call(value).withTimeout(Duration.ofHours(1)).join());
        return new WeakReference<>(value);
    }

    @Test
    void badTimeoutsSayWhatIsWrong() {
        Task<Integer> task = holds.call(1);
        for (Duration bad : List.of(Duration.ZERO, Duration.ofMillis(-5))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> task.withTimeout(bad));
            assertEquals("a task timeout must be positive, was " + bad + "; leave it unset for no timeout", e.getMessage());
            IllegalArgumentException pool = assertThrows(IllegalArgumentException.class,
                    () -> PoolOptions.defaults().withTaskTimeout(bad));
            assertEquals(e.getMessage(), pool.getMessage());
        }
        assertThrows(NullPointerException.class, () -> task.withTimeout(null));
        assertThrows(NullPointerException.class, () -> PoolOptions.defaults().withTaskTimeout(null));
        IllegalArgumentException channel = assertThrows(IllegalArgumentException.class,
                () -> channel(List.of(1, 2)).withTimeout(SHORT));
        assertTrue(channel.getMessage().endsWith("is a channel, which does not run on a worker: pass it as the Stream or"
                + " Iterable argument of the tasks that consume it, or join() it to consume it on this thread"), channel.getMessage());
        assertEquals(java.util.Optional.of(SHORT), PoolOptions.defaults().withTaskTimeout(SHORT).taskTimeout());
        assertTrue(PoolOptions.defaults().withTaskTimeout(SHORT).toString().contains("taskTimeout=PT0.1S"));
    }
}
