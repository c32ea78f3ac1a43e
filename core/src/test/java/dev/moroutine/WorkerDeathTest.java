package dev.moroutine;

import static dev.moroutine.testing.WorkerThreads.threadOf;
import static dev.moroutine.Moroutine.*;
import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class WorkerDeathTest {

    static final class Counted implements AutoCloseable {
        final AtomicInteger closes;

        Counted(AtomicInteger closes) {
            this.closes = closes;
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    static final Mo1<Integer, Integer> overflow = mo(WorkerDeathTest::recurse);
    static final Mo1<Integer, Integer> square = mo(x -> x * x);
    static final Mo0<Thread> whereAmI = mo(Thread::currentThread);
    static final Mo2<CountDownLatch, CountDownLatch, Boolean> hold = mo((started, gate) -> {
        started.countDown();
        return gate.await(30, TimeUnit.SECONDS);
    });
    static final Mo1<AtomicInteger, Counted> resource = mo(Counted::new);
    static final Mo2<Counted, Integer, Integer> overflowWith = mo((counted, depth) -> recurse(depth));
    static final Mo1<Integer, Integer> throwsError = mo(x -> {
        throw new AssertionError("custom error " + x);
    });

    static final Mo1<Integer, Integer> throwsThrowable = mo(x -> sneakyThrow(new Throwable("sneaky " + x)));

    @SuppressWarnings("unchecked") // the classic sneaky throw: erases the checked type at run time
    private static <T extends Throwable> Integer sneakyThrow(Throwable t) throws T {
        throw (T) t;
    }

    private static int recurse(int n) {
        return recurse(n + 1) + 1;
    }

    @RepeatedTest(3)
    void aDeadWorkerIsReplacedAndTheTasksQueuedBehindItStillRun() throws Exception {
        try (Pool pool = workers(1)) {
            WorkerHandle worker = pool.workers().get(0);
            Thread before = threadOf(worker);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch gate = new CountDownLatch(1);
            CompletableFuture<Boolean> first = pool.submit(hold.call(started, gate));
            assertTrue(started.await(10, TimeUnit.SECONDS));
            CompletableFuture<Integer> dying = pool.submit(overflow.call(0));
            List<CompletableFuture<Integer>> behind = new ArrayList<>();
            for (int i = 0; i < 10; i++) behind.add(pool.submit(square.call(i)));
            gate.countDown();

            assertTrue(first.get());
            CompletionException e = assertThrows(CompletionException.class, dying::join);
            WorkerDiedException died = assertInstanceOf(WorkerDiedException.class, e.getCause());
            assertInstanceOf(StackOverflowError.class, died.getCause());
            assertTrue(died.getMessage().startsWith(before.getName() + " died running task dev.moroutine.WorkerDeathTest#overflow"),
                    died.getMessage());
            for (int i = 0; i < 10; i++) assertEquals(i * i, behind.get(i).get(), "queued work survives");

            Thread after = pool.run(whereAmI.call());
            assertNotSame(before, after);
            assertSame(after, threadOf(worker), "the handle follows the replacement");
            assertEquals(before.getName() + "#1", after.getName());
            assertTrue(after.isDaemon());
            before.join(10_000);
            assertFalse(before.isAlive());
        }
    }

    @Test
    void aFatalErrorKillsOnlyItsWorkerAndTheTaskArgValuesOfThatThreadAreClosed() {
        AtomicInteger closes = new AtomicInteger();
        Task<Counted> counted = resource.call(closes);
        try (Pool pool = workers(2)) {
            WorkerHandle w0 = pool.workers().get(0);
            WorkerHandle w1 = pool.workers().get(1);
            CompletionException e = assertThrows(CompletionException.class,
                    () -> pool.submit(assign(w0, overflowWith.call(counted, 0))).join());
            assertInstanceOf(WorkerDiedException.class, e.getCause());
            assertEquals(1, closes.get(), "the dead thread's cached values are closed with it");
            assertEquals(9, pool.run(assign(w1, square.call(3))));

            for (int i = 0; i < 100; i++) assertEquals(i * i, pool.run(square.call(i)));
        }
    }

    /** An AssertionError or a sneakily thrown checked Throwable is an ordinary failure: the thread lives on. */
    @Test
    void otherThrowablesFailOnlyTheirTask() {
        try (Pool pool = workers(1)) {
            Thread before = threadOf(pool.workers().get(0));
            TaskFailedException error = assertThrows(TaskFailedException.class, () -> pool.run(throwsError.call(7)));
            assertEquals("custom error 7", assertInstanceOf(AssertionError.class, error.getCause()).getMessage());
            TaskFailedException sneaky = assertThrows(TaskFailedException.class, () -> pool.run(throwsThrowable.call(8)));
            assertEquals("sneaky 8", sneaky.getCause().getMessage());
            assertSame(before, pool.run(whereAmI.call()), "no replacement needed");
        }
    }
}
