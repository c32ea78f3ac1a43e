package dev.moroutine.internal.stream;

import static dev.moroutine.Moroutine.*;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo0;
import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import dev.moroutine.Task;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * {@link ItemSourceContract} for {@link MapSource}: its items are the results of tasks on a pool of
 * one worker, which completes them in the order they were submitted, several in flight at once.
 */
class MapSourceContractTest extends ItemSourceContract {

    /** More than the contract's short item list plus a last task, so one next() submits them all. */
    private static final int CONCURRENCY = 8;

    /** Released by every item's task once it has run; a fresh one per test. */
    private static volatile Semaphore ran;
    /** What an unfinished source's last task waits for; opened after each test. */
    private static volatile CountDownLatch hold;

    static final Mo1<Integer, Integer> echo = mo(i -> {
        ran.release();
        return i;
    });
    static final Mo1<String, Integer> fail = mo(message -> {
        throw new IllegalStateException(message);
    });
    static final Mo0<Integer> held = mo(() -> {
        hold.await();
        return -1;
    });

    private final Map<ItemSource, Integer> sizes = new IdentityHashMap<>();
    private Pool pool;

    @BeforeEach
    void start() {
        ran = new Semaphore(0);
        hold = new CountDownLatch(1);
        pool = workers(1);
    }

    @AfterEach
    void stop() {
        hold.countDown();
        pool.close();
    }

    @Override
    ItemSource ending(List<Integer> items) {
        return source(items, Stream.empty());
    }

    @Override
    ItemSource failing(List<Integer> items, String message) {
        return source(items, Stream.of(fail.call(message)));
    }

    @Override
    ItemSource unfinished(List<Integer> items) {
        return source(items, Stream.of(held.call()));
    }

    /** The items' tasks have run; their completions may still be on their way, which changes nothing the tests check. */
    @Override
    void awaitProduced(ItemSource source) throws InterruptedException {
        assertTrue(ran.tryAcquire(sizes.get(source), TIMEOUT_SECONDS, TimeUnit.SECONDS), "the item tasks did not run");
    }

    private ItemSource source(List<Integer> items, Stream<Task<Integer>> last) {
        Stream<Task<Integer>> tasks = Stream.concat(items.stream().map(echo::call), last);
        MapSource source = new MapSource(pool, tasks.iterator(), CONCURRENCY, null);
        sizes.put(source, items.size());
        return source;
    }
}
