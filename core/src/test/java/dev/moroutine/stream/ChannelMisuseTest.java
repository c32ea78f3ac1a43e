package dev.moroutine.stream;

import static dev.moroutine.testing.WorkerThreads.threadOf;
import static dev.moroutine.Moroutine.*;
import static dev.moroutine.stream.Streaming.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import dev.moroutine.Pool;
import dev.moroutine.TaskFailedException;
import dev.moroutine.WorkerHandle;
import dev.moroutine.testing.Stress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Channels used wrongly fail with a message, and release what they hold, instead of hanging a worker. */
@Timeout(120)
class ChannelMisuseTest {

    static final StreamMo1<Integer, Integer> upTo = streaming(n -> IntStream.range(0, n).boxed());
    static final StreamMo1<Stream<Integer>, Integer> doubled = streaming(in -> in.map(x -> 2 * x));
    static final Mo1<Iterable<Integer>, Integer> sum = mo(ChannelMisuseTest::total);
    static final Mo1<Channel<Integer>, Long> joinAndCount = mo(channel -> channel.join().count());
    /** Runs two consumers of {@code channel} on the calling thread as one batch of another pool's, and counts their items. */
    static final Mo1<Channel<Integer>, Long> runAllAndCount = mo(channel -> {
        try (Pool other = workers(1)) {
            long count = 0;
            for (LiveStream<Integer> end : other.runAll(List.of(channel, channel))) {
                try (end) {
                    count += end.count();
                }
            }
            return count;
        }
    });
    static final Mo2<Iterable<Integer>, Iterable<Integer>, Integer> sumBoth = mo((a, b) -> total(a) + total(b));

    private static int total(Iterable<Integer> items) {
        int total = 0;
        for (int x : items) total += x;
        return total;
    }

    private static Channel<Integer> endedChannel() {
        Channel<Integer> ended = channel(List.of());
        assertEquals(List.of(), ended.join().toList());
        return ended;
    }

    /**
     * The task's second channel has ended, so it is refused: no item of its first channel may go to
     * it, whether that channel's other consumer attached before the refused task or after it.
     */
    @Test
    void aTaskRefusedWhileAttachingItsChannelsLosesNoItemOfTheOthers() throws Exception {
        Channel<Integer> ended = endedChannel();
        int rounds = Stress.scaled(20);
        int lost = 0;
        try (Pool pool = workers(2)) {
            WorkerHandle source = pool.workers().get(0);
            WorkerHandle consumer = pool.workers().get(1);
            for (int round = 0; round < rounds; round++) {
                Channel<Integer> live = channel(Streaming.assign(source, upTo.call(100)), 4);
                CompletableFuture<Integer> before = round % 2 == 0 ? pool.submit(assign(consumer, sum.call(live))) : null;
                IllegalStateException refused = assertThrows(IllegalStateException.class,
                        () -> pool.submit(assign(consumer, sumBoth.call(live, ended))));
                assertTrue(refused.getMessage().contains("has ended"), refused.getMessage());
                int total = before != null ? before.get(10, TimeUnit.SECONDS) : pool.run(assign(consumer, sum.call(live)));
                if (total != 4_950) lost++;
            }
        }
        assertEquals(0, lost, "rounds in which the refused task's end swallowed items");
    }

    /**
     * A task that its worker refuses (its pool is closing or closed) was attached before the refusal,
     * so items could be routed to its end in between (by the distributor the channel had then): they were dropped with it.
     */
    @Test
    void aTaskRefusedByItsWorkerLosesNoItemOfItsChannel() throws Exception {
        Pool closed = workers(1);
        WorkerHandle gone = closed.workers().get(0);
        closed.close();
        List<Integer> items = IntStream.range(0, 20_000).boxed().toList();
        int rounds = Stress.scaled(20);
        int lost = 0;
        try (Pool pool = workers(1)) {
            for (int round = 0; round < rounds; round++) {
                Channel<Integer> channel = channel(items, 4);
                CompletableFuture<Integer> total = pool.submit(sum.call(channel));
                for (int attempt = 0; attempt < 200 && !total.isDone(); attempt++) {
                    RuntimeException refused = assertThrows(RuntimeException.class, () -> assign(gone, sum.call(channel)).join());
                    assertTrue(refused instanceof RejectedExecutionException || refused.getMessage().contains("has ended"),
                            refused.toString());
                }
                if (total.get(10, TimeUnit.SECONDS) != 199_990_000) lost++;
            }
        }
        assertEquals(0, lost, "rounds in which a refused task's end swallowed items");
    }

    @Test
    void aTaskRefusedWhileAttachingItsChannelsDoesNotHoldTheSourcesWorker() {
        Channel<Integer> ended = endedChannel();
        Pool pool = workers(2);
        Channel<Integer> live = channel(Streaming.assign(pool.workers().get(0), upTo.call(1_000_000)), 4);
        assertThrows(IllegalStateException.class, () -> pool.submit(assign(pool.workers().get(1), sumBoth.call(live, ended))));
        assertTimeoutPreemptively(Duration.ofSeconds(10), pool::close,
                "the source's producer stayed blocked on the end that nobody consumes");
    }

    /** Through a channel, a consumer on its source's worker waited for itself, silently, and so did the others. */
    @Test
    void aConsumerOnTheWorkerOfItsChannelsSourceFailsAndSoDoTheOtherConsumers() {
        for (int round = 0; round < Stress.scaled(5); round++) {
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                try (Pool pool = workers(2)) {
                    WorkerHandle sourceWorker = pool.workers().get(0);
                    Channel<Integer> channel = channel(Streaming.assign(sourceWorker, upTo.call(1_000_000)), 4);
                    CompletableFuture<Integer> other = pool.submit(assign(pool.workers().get(1), sum.call(channel)));
                    IllegalStateException refused = assertThrows(IllegalStateException.class,
                            () -> pool.submit(assign(sourceWorker, sum.call(channel))));
                    assertTrue(refused.getMessage().startsWith(channel + " cannot feed task " + sum),
                            refused.getMessage());
                    assertTrue(refused.getMessage().contains("it runs on " + sourceWorker + ", which also runs the channel's"
                            + " source, task " + upTo + " assigned to " + sourceWorker), refused.getMessage());
                    assertTrue(refused.getMessage().contains("it would wait for itself"), refused.getMessage());
                    assertTrue(refused.getMessage().contains("Run the source and the consumers on different workers"),
                            refused.getMessage());
                    ExecutionException failed = assertThrows(ExecutionException.class, () -> other.get(10, TimeUnit.SECONDS));
                    assertInstanceOf(TaskFailedException.class, failed.getCause());
                    assertSame(refused, failed.getCause().getCause(), "the other consumer learns why");
                    IllegalStateException after = assertThrows(IllegalStateException.class,
                            () -> pool.submit(assign(pool.workers().get(1), sum.call(channel))));
                    assertSame(refused, after.getCause(), "a late consumer learns why the channel ended");
                }
            });
        }
    }

    /** A channel over a call of a moroutine, consumed by a call of the same one: both run on its dedicated worker. */
    @Test
    void aChannelPipedIntoACallOfItsSourcesMoroutineFailsInsteadOfHanging() {
        Channel<Integer> channel = channel(doubled.call(upTo.call(1_000)));
        TaskFailedException e = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> assertThrows(TaskFailedException.class, () -> sum.call(doubled.call(channel)).join()));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("it would wait for itself"), e.getCause().getMessage());
    }

    /**
     * A consumer on the calling thread, which is the worker that runs the channel's source, from inside
     * a task: a join(), or a batch of another pool's given the channel.
     */
    @ParameterizedTest
    @ValueSource(strings = {"join", "runAll"})
    void aConsumerOnTheWorkerOfItsSourceFailsInsteadOfHanging(String how) {
        Mo1<Channel<Integer>, Long> consumer = how.equals("join") ? joinAndCount : runAllAndCount;
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            try (Pool pool = workers(1)) {
                WorkerHandle only = pool.workers().get(0);
                Channel<Integer> channel = channel(Streaming.assign(only, upTo.call(100)));
                TaskFailedException e = assertThrows(TaskFailedException.class, () -> pool.run(consumer.call(channel)));
                assertInstanceOf(IllegalStateException.class, e.getCause());
                assertTrue(e.getCause().getMessage().startsWith(channel + " cannot feed join() on " + threadOf(only).getName()),
                        e.getCause().getMessage());
            }
        });
    }
}
