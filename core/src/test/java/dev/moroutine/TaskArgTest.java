package dev.moroutine;

import static dev.moroutine.Moroutine.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.testing.Stress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class TaskArgTest {

    /** A thread-confined resource, like a JDBC connection: it records where it was opened and closed. */
    static final class Resource implements AutoCloseable {
        final Thread openedOn = Thread.currentThread();
        final String name;
        volatile Thread closedOn;
        int uses; // touched only by its own worker thread: no synchronisation on purpose

        Resource(String name) {
            this.name = name;
        }

        @Override
        public void close() {
            closedOn = Thread.currentThread();
        }
    }

    record Ledger(AtomicInteger opens, ConcurrentLinkedQueue<Resource> opened) {
        Ledger() {
            this(new AtomicInteger(), new ConcurrentLinkedQueue<>());
        }
    }

    static final Mo2<Ledger, String, Resource> open = mo((ledger, name) -> {
        ledger.opens().incrementAndGet();
        Resource resource = new Resource(name);
        ledger.opened().add(resource);
        return resource;
    });
    static final Mo1<Resource, Integer> use = mo(resource -> {
        if (resource.openedOn != Thread.currentThread()) {
            throw new AssertionError("resource used off its worker: " + Thread.currentThread());
        }
        return ++resource.uses;
    });
    static final Mo2<Resource, Resource, String> pair = mo((a, b) -> a.name + "+" + b.name);
    static final Mo2<AtomicInteger, Integer, Integer> flaky = mo((attempts, failures) -> {
        int attempt = attempts.incrementAndGet();
        if (attempt <= failures) throw new IllegalStateException("attempt " + attempt + " failed");
        return attempt;
    });
    static final Mo1<Integer, Integer> plusOne = mo(x -> x + 1);
    static final Mo1<Integer, Integer> nested = mo(x -> x * 10);
    /** A value whose close() tells whether its thread was interrupted then. */
    static final Mo1<CompletableFuture<Boolean>, AutoCloseable> reportsInterruptOnClose =
            mo(interrupted -> () -> interrupted.complete(Thread.currentThread().isInterrupted()));
    static final Mo1<AutoCloseable, Integer> holdsValue = mo(value -> 1);

    @Test
    void resolvedOncePerWorkerCachedAndClosedOnItsOwnThreadWhenTheWorkerStops() {
        Ledger ledger = new Ledger();
        Task<Resource> db = open.call(ledger, "db");
        int perWorker = 200;
        List<CompletableFuture<Integer>> uses = new ArrayList<>();
        Pool pool = workers(3);
        for (int i = 0; i < perWorker; i++) {
            for (WorkerHandle worker : pool.workers()) {
                uses.add(pool.submit(assign(worker, use.call(db))));
            }
        }
        uses.forEach(CompletableFuture::join);
        assertEquals(3, ledger.opens().get(), "one resolution per worker, not per call");
        for (Resource resource : ledger.opened()) {
            assertEquals(perWorker, resource.uses);
            assertNull(resource.closedOn, "open while the pool is open");
        }

        pool.close();

        for (Resource resource : ledger.opened()) {
            assertSame(resource.openedOn, resource.closedOn, "closed on the worker that opened it");
        }
    }

    /**
     * terminate() interrupted the worker thread without aiming at a task, so the interrupt could
     * land while the thread, already leaving, closed its values (fails 5 of 5 before the fix).
     */
    @RepeatedTest(5)
    void aTerminatedPoolClosesItsTaskArgValuesWithoutAnInterrupt() throws Exception {
        int interrupted = 0;
        int rounds = Stress.scaled(1_000);
        for (int round = 0; round < rounds; round++) {
            Pool pool = workers(1);
            CompletableFuture<Boolean> interruptedOnClose = new CompletableFuture<>();
            assertEquals(1, pool.run(holdsValue.call(reportsInterruptOnClose.call(interruptedOnClose))));
            for (int i = ThreadLocalRandom.current().nextInt(2_000); i > 0; i--) {
                Thread.onSpinWait(); // terminate while the worker spins idle, parks, or in between
            }
            pool.terminate();
            if (interruptedOnClose.get(10, TimeUnit.SECONDS)) {
                interrupted++;
            }
        }
        assertEquals(0, interrupted, "values closed on an interrupted thread, in " + rounds + " rounds");
    }

    @Test
    void distinctTaskObjectsAreDistinctCacheEntriesAndTaskArgsNest() {
        Ledger ledger = new Ledger();
        try (Pool pool = workers(1)) {
            Task<Resource> a = open.call(ledger, "a");
            Task<Resource> b = open.call(ledger, "b");
            assertEquals("a+b", pool.run(pair.call(a, b)));
            assertEquals("a+b", pool.run(pair.call(a, b)));
            assertEquals(2, ledger.opens().get());
            assertEquals(21, pool.run(plusOne.call(nested.call(plusOne.call(1)))));
        }
    }

    @Test
    void onTheDedicatedWorkerToo() {
        Ledger ledger = new Ledger();
        Task<Resource> db = open.call(ledger, "dedicated");
        assertEquals(1, use.call(db).join());
        assertEquals(2, use.call(db).join());
        assertEquals(1, ledger.opens().get());
    }

    @Test
    void aFailedTaskArgFailsTheOuterTaskIsNotCachedAndIsRetried() {
        AtomicInteger attempts = new AtomicInteger();
        Task<Integer> unreliable = flaky.call(attempts, 1);
        try (Pool pool = workers(1)) {
            TaskFailedException e = assertThrows(TaskFailedException.class, () -> pool.run(plusOne.call(unreliable)));
            TaskFailedException onWorker = assertInstanceOf(TaskFailedException.class, e.getCause());
            assertTrue(onWorker.getMessage().contains("task-arg task dev.moroutine.TaskArgTest#flaky failed"), onWorker.getMessage());
            assertTrue(onWorker.getMessage().contains("TaskArgTest#plusOne did not run"), onWorker.getMessage());
            assertEquals("attempt 1 failed", onWorker.getCause().getMessage());

            assertEquals(3, pool.run(plusOne.call(unreliable)), "second attempt succeeds");
            assertEquals(3, pool.run(plusOne.call(unreliable)), "and is cached");
            assertEquals(2, attempts.get());
        }
    }
}
