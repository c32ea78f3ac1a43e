package dev.moroutine.internal.dispatch;

import dev.moroutine.WorkerHandle;
import java.time.Duration;
import java.util.List;

/** What a pool sets for every task run by its workers; a dedicated worker has none (the defaults hold). */
public interface WorkerGroup {

    /**
     * Stream items in flight before a producer blocks, for streams opened by tasks of this pool.
     *
     * @return the high-water mark
     */
    int highWaterMark();

    /**
     * How long a task without a timeout of its own may run.
     *
     * @return the timeout, or null for none
     */
    Duration taskTimeout();

    /**
     * The group's workers now: where an idle thread worker looks for {@linkplain #sharesWork shared}
     * tasks waiting at the others.
     *
     * @return the workers, empty while the group starts them
     */
    default List<WorkerHandle> workers() {
        return List.of();
    }

    /**
     * Whether an idle worker of this group may run {@code invocation} in place of the worker it was
     * sent to, while it waits there behind another task: the group's balancer only spreads load
     * (round robin, least busy), it has more than one worker, and nobody assigned the task to its worker.
     *
     * @param invocation a task being dispatched to one of the group's workers
     * @return whether another worker may take it
     */
    default boolean sharesWork(Invocation invocation) {
        return false;
    }

    /**
     * Whether this group shares any task at all ({@link #sharesWork} is true for some): its idle
     * workers look at their siblings only then.
     *
     * @return whether its balancer only spreads load and it has more than one worker
     */
    default boolean sharesAnyWork() {
        return false;
    }

    /**
     * How many of the group's idle thread workers may spin at once.
     *
     * @return the group's gate, or null to let all of them spin
     */
    default SpinGate spinGate() {
        return null;
    }

    /**
     * The group's {@code runAll} batches under way: its thread workers keep a batch's order only while
     * there is one.
     *
     * @return them, or null if the group sends no batches
     */
    default BatchesUnderWay batches() {
        return null;
    }
}
