package dev.moroutine;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.stream.Streaming.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.internal.call.WorkerPool;
import dev.moroutine.stream.LiveStream;
import dev.moroutine.stream.StreamMo1;
import dev.moroutine.testing.Stress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What holds when {@link Pool#close()} returns, and what it says while it waits. */
@Timeout(120)
class CloseTest {

    static final Mo1<Integer, Integer> square = mo(x -> x * x);
    static final Mo3<WorkerDeathTest.Counted, CountDownLatch, CountDownLatch, String> holdWith = mo((counted, started, gate) -> {
        started.countDown();
        gate.await(); // the shutdown timeout interrupts it
        return "released";
    });
    static final Mo2<CountDownLatch, AtomicBoolean, String> ignoreInterrupts = mo((started, stop) -> {
        started.countDown();
        while (!stop.get()) {
            Thread.onSpinWait();
        }
        return "stopped";
    });
    static final StreamMo1<Integer, Integer> countUp = streaming(n -> IntStream.range(0, n).boxed());

    /** Issue 8 item 4: the dying thread used to count the worker down before failing the task that killed it. */
    @Test
    void whenCloseReturnsTheTaskThatKilledItsWorkerHasFailed() {
        int notDone = 0;
        for (int i = 0; i < Stress.scaled(300); i++) {
            Pool pool = workers(1);
            CompletableFuture<Integer> dying = pool.submit(WorkerDeathTest.overflow.call(0));
            pool.close();
            if (!dying.isDone()) {
                notDone++;
            }
            CompletionException e = assertThrows(CompletionException.class, dying::join);
            assertInstanceOf(WorkerDiedException.class, e.getCause());
        }
        assertEquals(0, notDone, "close() returned before the dead worker's task had failed");
    }

    /** Issue 8 item 5: a submit that passed the pool's check used to be accepted, then cancelled by the closing worker. */
    @Test
    @Timeout(300) // a thousand rounds, ten thousand in the stress profile
    void aSubmitRacingAGracefulCloseRunsOrIsRejectedButIsNeverCancelled() throws Exception {
        int cancelled = 0;
        for (int round = 0; round < Stress.scaled(1_000); round++) {
            Pool pool = workers(1);
            List<List<CompletableFuture<Integer>>> accepted = List.of(new ArrayList<>(), new ArrayList<>());
            List<Thread> submitters = List.of(submitUntilRejected(pool, accepted.get(0)), submitUntilRejected(pool, accepted.get(1)));
            pool.close();
            for (Thread submitter : submitters) {
                submitter.join(TimeUnit.SECONDS.toMillis(10));
                assertFalse(submitter.isAlive());
            }
            for (List<CompletableFuture<Integer>> futures : accepted) {
                for (int i = 0; i < futures.size(); i++) {
                    CompletableFuture<Integer> future = futures.get(i);
                    assertTrue(future.isDone(), "close() returned before an accepted task completed");
                    if (future.isCompletedExceptionally()) {
                        assertThrows(CancellationException.class, future::join);
                        cancelled++;
                    } else {
                        assertEquals(i * i, future.join());
                    }
                }
            }
        }
        assertEquals(0, cancelled, "tasks accepted while the pool was closing were cancelled instead of run");
    }

    /** The forced side of the same race: every accepted task completes (run or cancelled), and the worker still stops. */
    @Test
    void aSubmitRacingTerminateIsRejectedOrCompletesAndTheWorkerStops() throws Exception {
        for (int round = 0; round < Stress.scaled(100); round++) {
            Pool pool = workers(1, PoolOptions.defaults().withThreadNamePrefix("test-pool-terminate"));
            List<CompletableFuture<Integer>> accepted = new ArrayList<>();
            Thread submitter = submitUntilRejected(pool, accepted);
            pool.terminate();
            submitter.join(TimeUnit.SECONDS.toMillis(10));
            assertFalse(submitter.isAlive());
            CompletableFuture.allOf(accepted.toArray(CompletableFuture<?>[]::new)).handle((ignored, failure) -> null)
                    .get(10, TimeUnit.SECONDS);
            for (int i = 0; i < accepted.size(); i++) {
                CompletableFuture<Integer> future = accepted.get(i);
                assertTrue(future.isCancelled() || future.join() == i * i, "ran, or was failed by the terminate");
            }
        } // NoLeakedWorkers: each worker thread took every admitted task and ended
    }

    /**
     * Starts a thread that submits squares until the pool refuses one (or 20,000 were accepted,
     * when this thread is slow to stop the pool); returns once one was accepted.
     */
    private static Thread submitUntilRejected(Pool pool, List<CompletableFuture<Integer>> accepted) throws InterruptedException {
        CountDownLatch submitting = new CountDownLatch(1);
        Thread submitter = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 20_000; i++) {
                try {
                    accepted.add(pool.submit(square.call(i)));
                } catch (RejectedExecutionException closed) {
                    return;
                }
                submitting.countDown();
            }
        });
        assertTrue(submitting.await(10, TimeUnit.SECONDS));
        return submitter;
    }

    /** Issue 8 item 7: the streams a failing runAll had opened kept their workers, so close() hung until a GC. */
    @Test
    void aFailingRunAllClosesTheStreamsItOpened() {
        Pool pool = workers(2);
        Pool other = workers(1);
        try {
            List<Task<?>> tasks = List.of(countUp.call(1_000), countUp.call(1_000),
                    assign(other.workers().get(0), square.call(2)));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pool.runAll(tasks));
            assertTrue(e.getMessage().contains("belongs to"), e.getMessage());
        } finally {
            other.close();
            assertTimeoutPreemptively(Duration.ofSeconds(10), pool::close,
                    "close() waits for stream producers that the failed runAll left open");
        }
    }

    /**
     * Issue 8 item 9: close() with a shutdown timeout used to return right after interrupting,
     * before the interrupted task ended and before its worker closed its task-arg values.
     */
    @Test
    void afterTheShutdownTimeoutCloseWaitsForTheInterruptedTasksAndTheirValues() throws Exception {
        int early = 0;
        for (int i = 0; i < Stress.scaled(100); i++) {
            Pool pool = workers(1, PoolOptions.defaults().withShutdownTimeout(Duration.ZERO));
            AtomicInteger closes = new AtomicInteger();
            CountDownLatch started = new CountDownLatch(1);
            CompletableFuture<String> running = pool.submit(holdWith.call(WorkerDeathTest.resource.call(closes), started, new CountDownLatch(1)));
            assertTrue(started.await(10, TimeUnit.SECONDS));
            pool.close();
            if (closes.get() != 1) {
                early++;
            }
            Throwable cancelled = PoolTest.cancellation(running);
            assertTrue(cancelled.getMessage().contains("interrupted"), cancelled.getMessage());
        }
        assertEquals(0, early, "close() returned before the interrupted worker closed its task-arg values");
    }

    /** Issue 8 item 9: a task that ignores the interrupt holds close() for a bounded grace only, and is reported. */
    @Test
    void aTaskThatIgnoresTheInterruptIsLeftBehindAfterTheGraceAndReported() throws Exception {
        Pool pool = workers(1, PoolOptions.defaults().withShutdownTimeout(Duration.ZERO).withThreadNamePrefix("test-pool-stubborn"));
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(1);
        try (Logged logged = new Logged()) {
            CompletableFuture<String> stubborn = pool.submit(ignoreInterrupts.call(started, stop));
            assertTrue(started.await(10, TimeUnit.SECONDS));
            long begin = System.nanoTime();
            pool.close();
            long took = System.nanoTime() - begin;
            assertTrue(took < TimeUnit.SECONDS.toNanos(5), "close() waited " + Duration.ofNanos(took));
            assertThrows(CancellationException.class, stubborn::join);
            LogRecord record = logged.next();
            assertEquals(Level.WARNING, record.getLevel());
            assertEquals("test-pool-stubborn: close() stops waiting for worker 0 (test-pool-stubborn-worker-0), still running"
                    + " task dev.moroutine.CloseTest#ignoreInterrupts 1 s after interrupting it; that thread ends,"
                    + " closing its task-arg values, when the task returns", record.getMessage());
        } finally {
            stop.set(true); // lets the abandoned thread end, so it does not outlive the test
        }
    }

    /** Issue 9 item 1: close() waiting on a stream nobody consumes used to wait silently forever. */
    @Test
    void aCloseHeldByAnUnconsumedStreamSaysWhichWorkerWhichTaskAndWhereItWasOpened() throws Exception {
        Pool pool = workers(1, PoolOptions.defaults().withThreadNamePrefix("test-pool-held"));
        ((WorkerPool) pool).warnWhileClosingEvery(Duration.ofMillis(200));
        try (Logged logged = new Logged()) {
            int line = new Throwable().getStackTrace()[0].getLineNumber() + 1;
            LiveStream<Integer> numbers = pool.run(countUp.call(1_000_000)); // its producer fills the pipe, then waits
            Thread closer = Thread.ofPlatform().start(pool::close);
            String expected = "test-pool-held: close() has waited %s for worker 0 (test-pool-held-worker-0), which is running"
                    + " the stream of task dev.moroutine.CloseTest#countUp, opened at dev.moroutine.CloseTest."
                    + "aCloseHeldByAnUnconsumedStreamSaysWhichWorkerWhichTaskAndWhereItWasOpened(CloseTest.java:" + line + ");"
                    + " a stream's producer keeps its worker until the stream is read to the end or closed: close the"
                    + " LiveStream (try-with-resources)";
            for (String waited : List.of("0.2 s", "0.4 s")) { // and it keeps saying so
                LogRecord record = logged.next();
                assertEquals(Level.WARNING, record.getLevel());
                assertEquals(expected.formatted(waited), record.getMessage());
            }
            numbers.close();
            closer.join(TimeUnit.SECONDS.toMillis(10));
            assertFalse(closer.isAlive(), "closing the stream frees its worker, and close() returns");
        }
    }

    /** Captures what the pool logs, through the java.util.logging backend of System.Logger. */
    private static final class Logged extends Handler implements AutoCloseable {
        private final Logger logger = Logger.getLogger(WorkerPool.class.getName());
        private final BlockingQueue<LogRecord> records = new LinkedBlockingQueue<>();

        Logged() {
            logger.addHandler(this);
        }

        LogRecord next() throws InterruptedException {
            LogRecord record = records.poll(10, TimeUnit.SECONDS);
            assertNotNull(record, "nothing was logged within 10 s");
            return record;
        }

        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {
            logger.removeHandler(this);
        }
    }
}
