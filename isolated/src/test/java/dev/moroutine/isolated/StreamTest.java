package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.TaskFailedException;
import dev.moroutine.WorkerDiedException;
import dev.moroutine.stream.LiveStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Streaming moroutines on worker JVMs: items cross back over the shared-memory ring, with backpressure. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StreamTest {

    private static final int HIGH_WATER_MARK = 64;

    /** One worker, so that a task run after a stream proves the stream's producer has left it. */
    private static Pool pool;

    @BeforeAll
    static void start() {
        pool = Isolated.workers(1, IsolatedOptions.defaults()
                .withPoolOptions(PoolOptions.defaults().withHighWaterMark(HIGH_WATER_MARK)));
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @Test
    void aMillionItemsArriveExactAndInOrderWithTheProducersLeadBounded(@TempDir Path dir) throws Exception {
        int n = 1_000_000;
        Path file = dir.resolve("emitted");
        long maxLead = 0;
        long start = System.nanoTime();
        try (StreamJobs.Counter emitted = new StreamJobs.Counter(file);
                LiveStream<Integer> items = pool.run(StreamJobs.counted.call(file.toString(), n))) {
            Iterator<Integer> it = items.iterator();
            for (int consumed = 0; consumed < n; ) {
                assertTrue(it.hasNext(), "ended after " + consumed + " items");
                int item = it.next();
                assertEquals(consumed, item, "in order");
                consumed++;
                long lead = emitted.get() - consumed;
                maxLead = Math.max(maxLead, lead);
                assertTrue(lead <= HIGH_WATER_MARK, "the producer is " + lead + " items ahead of the consumer, more than the"
                        + " high-water mark of " + HIGH_WATER_MARK);
            }
            assertTrue(!it.hasNext(), "nothing after the last item");
            assertEquals(n, emitted.get());
        }
        long nanos = System.nanoTime() - start;
        System.out.printf("%,d items from a worker JVM in %d ms (%.1f M items/s), the producer at most %d ahead%n", n,
                nanos / 1_000_000, n * 1e3 / nanos, maxLead);
        assertEquals(49, pool.run(Jobs.square.call(7)), "the worker goes on");
    }

    @Test
    void aSlowConsumerHoldsTheProducerAtTheHighWaterMark(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("emitted");
        try (StreamJobs.Counter emitted = new StreamJobs.Counter(file);
                LiveStream<Integer> items = pool.run(StreamJobs.counted.call(file.toString(), 10_000))) {
            Iterator<Integer> it = items.iterator();
            assertEquals(0, it.next());
            // The producer runs until it is about the high-water mark ahead of the one item taken (the
            // child hears of takes a quarter of the mark at a time), and no further.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (emitted.get() < HIGH_WATER_MARK && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            long held = emitted.get();
            assertTrue(held >= HIGH_WATER_MARK && held <= 1 + HIGH_WATER_MARK, "held at " + held);
            for (int i = 1; i < 10_000; i++) {
                assertEquals(i, it.next());
            }
            assertTrue(!it.hasNext());
        }
    }

    /**
     * The pump sleeps until the consumer has taken a step of items (a quarter of the mark), not one:
     * a consumer that takes exactly a step, then waits, must see the producer go on to exactly the
     * mark ahead of it, every time (a lost wake leaves it short, and the wait runs out).
     */
    @Test
    void aConsumerTakingAStepAtATimeGetsTheProducerToTheMarkEachTime(@TempDir Path dir) throws Exception {
        int step = HIGH_WATER_MARK / 4;
        int rounds = 200;
        Path file = dir.resolve("emitted");
        try (StreamJobs.Counter emitted = new StreamJobs.Counter(file);
                LiveStream<Integer> items = pool.run(StreamJobs.counted.call(file.toString(), (rounds + 4) * step))) {
            Iterator<Integer> it = items.iterator();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (int consumed = 0; consumed < rounds * step; ) {
                for (int i = 0; i < step; i++, consumed++) {
                    assertEquals(consumed, it.next(), "in order");
                }
                while (emitted.get() < consumed + HIGH_WATER_MARK) {
                    assertTrue(System.nanoTime() < deadline, "the producer stopped at " + emitted.get() + " with " + consumed
                            + " taken: the credit for the last step was not sent");
                    Thread.yield(); // two cores: the pump and the child need them
                }
                assertEquals(consumed + HIGH_WATER_MARK, emitted.get(), "the producer is exactly the mark ahead");
            }
        }
    }

    @Test
    void closingTheStreamStopsTheProducerInTheChild(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("emitted");
        try (StreamJobs.Counter emitted = new StreamJobs.Counter(file)) {
            try (LiveStream<Integer> items = pool.run(StreamJobs.counted.call(file.toString(), Integer.MAX_VALUE))) {
                Iterator<Integer> it = items.iterator();
                for (int i = 0; i < 1000; i++) {
                    assertEquals(i, it.next());
                }
            }
            // The one worker runs the next task only once the producer has left; it saw the cancellation in emit.
            assertEquals(9, pool.run(Jobs.square.call(3)));
            long last = emitted.get();
            assertTrue(last < 0, "the producer was stopped in emit: " + last);
            assertTrue(-last - 1 <= 1000 + HIGH_WATER_MARK, "it stopped within its lead: " + last);
        }
    }

    @Test
    void aFailureInTheChildFailsTheStreamAfterItsItems() {
        try (LiveStream<Integer> items = pool.run(StreamJobs.failAfter.call(100, "boom"))) {
            Iterator<Integer> it = items.iterator();
            for (int i = 0; i < 100; i++) {
                assertEquals(i, it.next());
            }
            TaskFailedException failed = assertThrows(TaskFailedException.class, it::hasNext);
            assertInstanceOf(IllegalStateException.class, failed.getCause());
            assertEquals("boom", failed.getCause().getMessage());
        }
        assertEquals(9, pool.run(Jobs.square.call(3)));
    }

    @Test
    void itemsOfManySizesCross() {
        int n = 20_000;
        try (LiveStream<String> items = pool.run(StreamJobs.strings.call(n, 5_000))) {
            List<String> got = items.toList();
            assertEquals(IntStream.range(0, n).mapToObj(i -> i + ":" + "x".repeat(i % 5_000)).toList(), got);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 5, 15, 100, 3_000})
    void theItemsBeforeOneThatCannotCrossArriveBeforeTheFailure(int n) {
        try (LiveStream<Object> items = pool.run(StreamJobs.numbersThenUnregistered.call(n))) {
            List<Object> got = new ArrayList<>();
            Iterator<Object> it = items.iterator();
            TaskFailedException failed = assertThrows(TaskFailedException.class, () -> {
                while (it.hasNext()) {
                    got.add(it.next());
                }
            });
            assertEquals(IntStream.range(0, n).boxed().toList(), got);
            assertTrue(failed.getCause().getMessage().contains("IsolatedOptions.defaults().register("
                    + "dev.moroutine.isolated.Jobs.Unregistered.class)"), failed.getCause().getMessage());
        }
    }

    @Test
    void anItemThatCannotCrossFailsTheStreamWithWhatToRegister() {
        try (LiveStream<Jobs.Unregistered> items = pool.run(StreamJobs.unregistered.call())) {
            TaskFailedException failed = assertThrows(TaskFailedException.class, items::toList);
            assertTrue(failed.getCause().getMessage().contains("IsolatedOptions.defaults().register("
                    + "dev.moroutine.isolated.Jobs.Unregistered.class)"), failed.getCause().getMessage());
        }
        assertEquals(9, pool.run(Jobs.square.call(3)));
    }

    @Test
    void aChildThatDiesFailsTheStreamOnceAndIsReplaced() {
        try (Pool own = Isolated.workers(1, IsolatedOptions.defaults())) {
            LiveStream<Integer> items = own.run(StreamJobs.haltAfter.call(50, 7));
            Iterator<Integer> it = items.iterator();
            // The items that crossed before the halt come in order; those still in the dying JVM are lost with it.
            int next = 0;
            TaskFailedException failed = null;
            while (failed == null) {
                try {
                    assertTrue(it.hasNext(), "the stream ended without its producer's death, after " + next + " items");
                    assertEquals(next++, it.next());
                } catch (TaskFailedException death) {
                    failed = death;
                }
            }
            assertTrue(next <= 50, next + " items");
            WorkerDiedException died = assertInstanceOf(WorkerDiedException.class, failed.getCause());
            assertTrue(died.getMessage().contains("7"), died.getMessage());
            assertTrue(died.getMessage().contains("halting after 50 items"), died.getMessage());
            TaskFailedException again = assertThrows(TaskFailedException.class, it::hasNext);
            assertTrue(again.getCause() == died, "the same failure, once settled");
            items.close();
            assertEquals(49, own.run(Jobs.square.call(7)), "a new JVM replaces it");
        }
    }
}
