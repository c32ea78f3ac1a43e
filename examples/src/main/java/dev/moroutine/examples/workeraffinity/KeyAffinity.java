package dev.moroutine.examples.workeraffinity;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.examples.workeraffinity.Counter.increment;
import static dev.moroutine.examples.workeraffinity.Counter.read;

import dev.moroutine.Balancer;

/** A custom balancer that routes every call for a key to the same worker. */
public final class KeyAffinity {

    private KeyAffinity() {}

    /**
     * Sends {@code increment} and {@code read} calls to the worker that the key's hash picks, and
     * any other task round robin. {@code isTask} tells which moroutine a task calls, and that
     * moroutine's {@code args(task)} reads the key, typed.
     *
     * @return a new balancer
     */
    public static Balancer keyAffinity() {
        Balancer fallback = roundRobin();
        return (workers, task) -> {
            String key = isTask(increment, task) ? increment.args(task).first()
                    : isTask(read, task) ? read.args(task).first()
                    : null;
            if (key == null) return fallback.select(workers, task);
            return workers.get(Math.floorMod(key.hashCode(), workers.size()));
        };
    }
}
