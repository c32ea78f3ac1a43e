package dev.moroutine;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.stream.Streaming.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.stream.Emitter;
import dev.moroutine.stream.LiveStream;
import dev.moroutine.stream.StreamMo1;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 9.6, one rule for errors: a task that failed (its function threw, whatever it threw, or it
 * ran over its timeout) makes the blocking calls throw {@link TaskFailedException}; only a task
 * stopped from outside (cancelled, terminated) makes them throw {@link CancellationException}.
 */
@Timeout(60)
class ErrorRuleTest {

    static final Mo1<Signal, String> stopsOnSignal = mo(signal -> {
        signal.throwIfAborted();
        return "ran";
    });
    static final Mo2<CountDownLatch, CountDownLatch, String> gated = mo((started, gate) -> {
        started.countDown();
        gate.await();
        return "released";
    });
    static final StreamMo1<Signal, Integer> emitsThenStops = emitting((Signal signal, Emitter<Integer> out) -> {
        out.emit(1);
        signal.throwIfAborted();
    });

    static final Mo0<String> throwsCauselessCompletion = mo(() -> {
        throw new CompletionException("no cause given", null);
    });

    private static Signal aborted() {
        var controller = new AbortController();
        controller.abort("enough");
        return controller.signal();
    }

    private static void assertStoppedByItsSignal(Throwable cause) {
        CancellationException stopped = assertInstanceOf(CancellationException.class, cause);
        assertEquals("signal aborted: enough", stopped.getMessage());
    }

    /** Before: pool.run threw the CancellationException itself (fails 5 of 5). */
    @RepeatedTest(5)
    void aFunctionThatStopsOnItsSignalFailsTheBlockingCalls() {
        try (Pool pool = workers(1)) {
            TaskFailedException run = assertThrows(TaskFailedException.class, () -> pool.run(stopsOnSignal.call(aborted())));
            assertStoppedByItsSignal(run.getCause());
            TaskFailedException all = assertThrows(TaskFailedException.class,
                    () -> pool.runAll(List.of(stopsOnSignal.call(aborted()))));
            assertStoppedByItsSignal(all.getCause());
        }
        TaskFailedException join = assertThrows(TaskFailedException.class, () -> stopsOnSignal.call(aborted()).join());
        assertStoppedByItsSignal(join.getCause());
    }

    /** Before: the future was cancelled and get() threw CancellationException (fails 5 of 5). */
    @RepeatedTest(5)
    void aFunctionThatStopsOnItsSignalFailsItsFutureAsSupplyAsyncWould() throws Exception {
        try (Pool pool = workers(1)) {
            CompletableFuture<String> future = pool.submit(stopsOnSignal.call(aborted()));
            ExecutionException get = assertThrows(ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
            assertStoppedByItsSignal(get.getCause());
            CompletionException join = assertThrows(CompletionException.class, future::join);
            assertStoppedByItsSignal(join.getCause());
            assertFalse(future.isCancelled(), "nobody cancelled it: its function threw");
            assertTrue(future.isCompletedExceptionally());
        }
    }

    /** Before: join() and map threw a TaskFailedException without a cause, "… failed: null" (fails 5 of 5). */
    @RepeatedTest(5)
    void aCompletionExceptionWithoutACauseIsTheCauseItself() {
        TaskFailedException e = assertThrows(TaskFailedException.class, () -> throwsCauselessCompletion.call().join());
        CompletionException own = assertInstanceOf(CompletionException.class, e.getCause(), "the moroutine's own exception");
        assertEquals("no cause given", own.getMessage());
        assertTrue(e.getMessage().endsWith("failed: " + own), e.getMessage());
        try (Pool pool = workers(1);
                LiveStream<String> results = map(pool, List.of(throwsCauselessCompletion.call()), 1)) {
            TaskFailedException inMap = assertThrows(TaskFailedException.class, () -> results.forEach(result -> {}));
            assertInstanceOf(CompletionException.class, inMap.getCause(), "map's failure has the task's own exception");
        }
    }

    /** Before: a channel over an iterable that threw CancellationException made its consumers throw it, as if stopped (fails 5 of 5). */
    @RepeatedTest(5)
    void aChannelWhoseIterableThrowsCancellationFailsItsConsumersAfterTheItems() {
        Iterable<Integer> stopsAfterTwo = () -> new Iterator<>() {
            private int next = 1;

            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public Integer next() {
                if (next > 2) {
                    throw new CancellationException("the source stopped itself");
                }
                return next++;
            }
        };
        try (LiveStream<Integer> items = channel(stopsAfterTwo).join()) {
            List<Integer> got = new ArrayList<>();
            TaskFailedException e = assertThrows(TaskFailedException.class, () -> items.forEach(got::add));
            assertEquals(List.of(1, 2), got);
            assertEquals("the source stopped itself", assertInstanceOf(CancellationException.class, e.getCause()).getMessage());
        }
    }

    @Test
    void aStreamWhoseProducerStopsOnItsSignalFailsAfterItsItems() {
        try (LiveStream<Integer> items = emitsThenStops.call(aborted()).join()) {
            List<Integer> got = new ArrayList<>();
            TaskFailedException e = assertThrows(TaskFailedException.class, () -> items.forEach(got::add));
            assertEquals(List.of(1), got);
            assertStoppedByItsSignal(e.getCause());
        }
    }

    @Test
    void aTaskStoppedFromOutsideIsACancellation() throws Exception {
        Pool pool = workers(1);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        CompletableFuture<String> blocked = CompletableFuture.supplyAsync(() -> pool.run(gated.call(started, gate)));
        assertTrue(started.await(10, TimeUnit.SECONDS));
        CompletableFuture<String> cancelled = pool.submit(gated.call(new CountDownLatch(1), gate));
        assertTrue(cancelled.cancel(true));
        assertTrue(cancelled.isCancelled());
        assertThrows(CancellationException.class, cancelled::join);

        pool.terminate();
        ExecutionException e = assertThrows(ExecutionException.class, () -> blocked.get(10, TimeUnit.SECONDS));
        CancellationException terminated = assertInstanceOf(CancellationException.class, e.getCause());
        assertTrue(terminated.getMessage().contains("was terminated"), terminated.getMessage());
    }
}
