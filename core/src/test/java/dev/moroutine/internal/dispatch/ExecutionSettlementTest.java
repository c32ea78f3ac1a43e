package dev.moroutine.internal.dispatch;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import dev.moroutine.internal.call.Call;
import dev.moroutine.internal.call.Definition;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What a worker is told of its execution's completion ({@link Execution#onSettled}): each completion, once. */
@Timeout(60)
class ExecutionSettlementTest {

    static final Mo1<Integer, Integer> square = mo(x -> x * x);
    static final Mo1<Object, Object> takesEndpoint = mo(x -> x);

    private static final Definition ENDPOINT_TAKER = new Definition(takesEndpoint, Definition.callSite(Pool.class), args -> null);
    private static final Endpoint ENDPOINT = consumer -> worker -> "opened";

    /** What a listener was told: the values and the failures, in order. */
    private static final class Told implements Execution.Settlement {
        final List<Object> values = new ArrayList<>();
        final List<Throwable> failures = new ArrayList<>();

        @Override
        public synchronized void settled(Object value, Throwable failure) {
            values.add(value);
            failures.add(failure);
        }
    }

    private static Execution<Integer> execution() {
        return new Execution<>(Call.of(square.call(3)), null);
    }

    @Test
    void aResultIsToldOnceWithItsValue() {
        Execution<Integer> execution = execution();
        Told told = new Told();
        execution.onSettled(told);
        assertTrue(execution.complete(9));
        assertEquals(false, execution.complete(10));
        execution.completeExceptionally(new IllegalStateException("late"));
        execution.cancel(true);
        assertEquals(List.of(9), told.values);
        assertNull(told.failures.getFirst());
    }

    @Test
    void aFailureIsToldWithTheExceptionStored() {
        Execution<Integer> execution = execution();
        Told told = new Told();
        execution.onSettled(told);
        IllegalStateException failure = new IllegalStateException("broken");
        assertTrue(execution.completeExceptionally(failure));
        assertEquals(1, told.failures.size());
        assertSame(failure, told.failures.getFirst());
        assertNull(told.values.getFirst());
    }

    @Test
    void aCancellationIsToldAsACancellationException() {
        for (boolean interrupt : new boolean[] {true, false}) {
            Execution<Integer> execution = execution();
            Told told = new Told();
            execution.onSettled(told);
            assertTrue(execution.cancel(interrupt));
            assertEquals(1, told.failures.size());
            assertInstanceOf(CancellationException.class, told.failures.getFirst());
        }
        Execution<Integer> stopped = execution();
        Told told = new Told();
        stopped.onSettled(told);
        stopped.cancel("the worker stopped");
        assertInstanceOf(CancellationException.class, told.failures.getFirst());
        assertTrue(told.failures.getFirst().getMessage().startsWith("the worker stopped"), told.failures.getFirst().getMessage());
    }

    @Test
    void aTimeoutOfTheFutureIsTold() throws Exception {
        Execution<Integer> execution = execution();
        CountDownLatch told = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        execution.onSettled((value, thrown) -> {
            failure.set(thrown);
            told.countDown();
        });
        execution.orTimeout(1, TimeUnit.MILLISECONDS);
        assertTrue(told.await(10, TimeUnit.SECONDS));
        assertInstanceOf(TimeoutException.class, failure.get());
    }

    @Test
    void aCompletionBeforeTheListenerIsNotToldAndOnlyTheLastListenerIs() {
        Execution<Integer> early = execution();
        early.complete(9);
        Told late = new Told();
        early.onSettled(late);
        assertEquals(List.of(), late.values);

        Execution<Integer> execution = execution();
        Told first = new Told();
        Told second = new Told();
        execution.onSettled(first);
        execution.onSettled(second);
        execution.complete(9);
        assertEquals(List.of(), first.values);
        assertEquals(List.of(9), second.values);
    }

    @Test
    void aListenerThatThrowsLeavesTheCompleterGoingAndTheFutureComplete() throws Exception {
        Execution<Integer> execution = execution();
        execution.onSettled((value, failure) -> {
            throw new IllegalStateException("a broken listener");
        });
        AtomicReference<Throwable> reported = new AtomicReference<>();
        AtomicReference<Boolean> completed = new AtomicReference<>();
        Thread completer = Thread.ofPlatform().unstarted(() -> completed.set(execution.complete(9)));
        completer.setUncaughtExceptionHandler((thread, thrown) -> reported.set(thrown));
        completer.start();
        completer.join(10_000);
        assertEquals(Boolean.TRUE, completed.get());
        assertEquals(9, execution.resultNow());
        assertEquals("a broken listener", reported.get().getMessage());
    }

    @Test
    void aVirtualMachineErrorFromTheListenerReachesTheCompleter() {
        Execution<Integer> execution = execution();
        execution.onSettled((value, failure) -> {
            throw new StackOverflowError("deep");
        });
        assertThrows(StackOverflowError.class, () -> execution.complete(9));
        assertEquals(9, execution.resultNow());
    }

    /**
     * A listener set while another thread cancels: told exactly once, or the look after it sees the
     * cancellation; whether setting it makes the execution's extras or the constructor made them
     * already, for an endpoint argument.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aCancellationRacingTheListenerIsNeverMissed(boolean withEndpoint) throws Exception {
        CyclicBarrier start = new CyclicBarrier(2);
        for (int round = 0; round < 20_000; round++) {
            Execution<?> execution = withEndpoint ? new Execution<>(ENDPOINT_TAKER.call(new StreamArg(ENDPOINT)), null) : execution();
            AtomicInteger told = new AtomicInteger();
            Thread canceller = Thread.ofPlatform().start(() -> {
                await(start);
                execution.cancel(false);
            });
            await(start);
            execution.onSettled((value, failure) -> told.incrementAndGet());
            boolean seen = execution.isCancelled();
            canceller.join(10_000);
            assertTrue(told.get() == 1 || told.get() == 0 && seen, "round " + round + ": told " + told.get() + ", seen " + seen);
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
