package dev.moroutine.internal.dispatch;

import java.time.Duration;

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
}
