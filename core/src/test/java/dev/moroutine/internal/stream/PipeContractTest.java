package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;

/** {@link ItemSourceContract} for {@link Pipe}: a producer thread emits into it, under backpressure. */
class PipeContractTest extends ItemSourceContract {

    /** Below the contract's long item list, so the producer waits for room; above its short one. */
    private static final int HIGH_WATER_MARK = 4;

    private final Map<Pipe<Integer>, Thread> producers = new IdentityHashMap<>();

    @Override
    ItemSource ending(List<Integer> items) {
        return produce(items, Pipe::finish);
    }

    @Override
    ItemSource failing(List<Integer> items, String message) {
        return produce(items, pipe -> pipe.fail(new IllegalStateException(message)));
    }

    @Override
    ItemSource unfinished(List<Integer> items) {
        return produce(items, pipe -> { });
    }

    @Override
    void awaitProduced(ItemSource source) throws InterruptedException {
        Thread producer = producers.get(source);
        producer.join(TIMEOUT_SECONDS * 1000);
        assertFalse(producer.isAlive(), "the producer did not finish its items");
    }

    private Pipe<Integer> produce(List<Integer> items, Consumer<Pipe<Integer>> then) {
        Pipe<Integer> pipe = new Pipe<>(HIGH_WATER_MARK, "contract pipe");
        producers.put(pipe, Thread.ofPlatform().name("contract-producer").daemon(true).start(() -> {
            try {
                items.forEach(pipe::emit);
                then.accept(pipe);
            } catch (CancellationException consumerClosed) {
                // the test cancelled before taking every item: the producer stops, as a moroutine would
            }
        }));
        return pipe;
    }

    /** A producer still waiting for room is released by the cancel, and every one ends. */
    @AfterEach
    void producersEnd() throws InterruptedException {
        for (Map.Entry<Pipe<Integer>, Thread> producer : producers.entrySet()) {
            producer.getKey().cancel();
            producer.getValue().join(TIMEOUT_SECONDS * 1000);
            assertFalse(producer.getValue().isAlive(), "a producer is still running after the test");
        }
    }
}
