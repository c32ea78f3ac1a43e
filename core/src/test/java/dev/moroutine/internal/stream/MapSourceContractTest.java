package dev.moroutine.internal.stream;

import static dev.moroutine.Moroutine.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo0;
import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import dev.moroutine.Task;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

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

    /**
     * An ended map used to ask its source again at the next {@code next()}: a source iterator that
     * had more by then (one over a queue that is filled later) restarted the ended stream.
     */
    @Test
    void anEndedMapStaysEndedThoughItsSourceHasMoreLater() {
        Queue<Task<Integer>> later = new ConcurrentLinkedQueue<>(List.of(echo.call(1)));
        Iterator<Task<Integer>> untilEmpty = new Iterator<>() {
            @Override
            public boolean hasNext() {
                return !later.isEmpty();
            }

            @Override
            public Task<Integer> next() {
                return later.remove();
            }
        };
        MapSource source = new MapSource(pool, untilEmpty, CONCURRENCY, null);
        assertEquals(1, source.next());
        assertSame(ItemSource.END, source.next());
        later.add(echo.call(2));
        assertSame(ItemSource.END, source.next());
        assertSame(ItemSource.END, source.next());
        assertEquals(1, later.size(), "nothing is taken from the source after the end");
    }

    private ItemSource source(List<Integer> items, Stream<Task<Integer>> last) {
        Stream<Task<Integer>> tasks = Stream.concat(items.stream().map(echo::call), last);
        MapSource source = new MapSource(pool, tasks.iterator(), CONCURRENCY, null);
        sizes.put(source, items.size());
        return source;
    }
}
