package dev.moroutine.examples.workeraffinity;

import static dev.moroutine.Moroutine.*;

import dev.moroutine.Mo0;
import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counters kept per worker: each worker thread has its own map, like a cache or a shard of data
 * loaded on that worker. A key's count is only right if all of its calls reach the same worker.
 */
public final class Counter {

    private Counter() {}

    private static final ThreadLocal<Map<String, Integer>> COUNTS = ThreadLocal.withInitial(HashMap::new);

    /** Adds {@code n} to {@code key}'s count on this worker and returns the new count. */
    public static final Mo2<String, Integer, Integer> increment = mo((key, n) -> COUNTS.get().merge(key, n, Integer::sum));

    /** Adds {@code n} to each key's count on this worker: a batch of increments in one task. */
    public static final Mo2<List<String>, Integer, Integer> incrementAll = mo((keys, n) -> {
        keys.forEach(key -> COUNTS.get().merge(key, n, Integer::sum));
        return keys.size();
    });

    /** Reads {@code key}'s count on this worker. */
    public static final Mo1<String, Integer> read = mo(key -> COUNTS.get().getOrDefault(key, 0));

    /** All of this worker's counts, sorted by key. */
    public static final Mo0<Map<String, Integer>> snapshot = mo(() -> new TreeMap<>(COUNTS.get()));
}
