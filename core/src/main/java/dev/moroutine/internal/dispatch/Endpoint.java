package dev.moroutine.internal.dispatch;

/**
 * An argument that is a stream (a stream task or a channel given to a {@code Stream}/{@code Iterable}
 * parameter) or a streaming call's own output. It crosses the {@link Worker} seam as a description;
 * the layer that made it says, through a {@link Binding} made for each execution, what the
 * function receives on the worker's side. Dispatch calls the binding's steps in order:
 * {@link Binding#sentTo}, {@link Binding#admitted}, {@link Binding#open} and {@link Binding#closeAfterRun}
 * on the worker, and {@link Binding#completed} once the execution completes, whether it ran or not.
 * A task-arg's endpoints are bound on the worker that resolves it, which is never dispatched: they
 * skip {@link Binding#admitted}, and are completed when the task-arg's run ends.
 */
public interface Endpoint {

    /**
     * Starts one execution's use of this endpoint, when the execution is built.
     *
     * @param consumer the task whose argument this is, for messages; null for a consumer on the
     *     calling thread (a channel that a batch runs), whose binding is opened with no worker or completed
     * @return the binding
     * @throws IllegalStateException if the endpoint can no longer be used (an ended channel)
     */
    Binding bind(Invocation consumer);

    /**
     * One execution's use of an {@link Endpoint}. The steps are called at most once each, in order,
     * but for {@link #sentTo}, called again for each worker a batch offers the execution to after
     * one refused it (see {@link Worker#dispatch}).
     */
    interface Binding {

        /**
         * The execution is about to be queued on {@code worker} (a task-arg's: to run there).
         *
         * @param worker where
         * @throws IllegalStateException if the execution must not run there (it would wait for itself)
         */
        default void sentTo(Worker worker) {}

        /** The worker accepted the execution: from now on it will run or be cancelled. */
        default void admitted() {}

        /**
         * On the worker, just before the function runs.
         *
         * @param worker the worker running the execution; null for a consumer on the calling thread
         * @return the value the function receives
         */
        Object open(Worker worker);

        /** On the worker, when the function has returned or thrown. */
        default void closeAfterRun() {}

        /**
         * The execution completed; also called when it never ran.
         *
         * @param failure its failure, or null if it succeeded
         */
        default void completed(Throwable failure) {}

        /**
         * Why a worker running this execution is held, for a {@code close()} that waits for it.
         *
         * @return the explanation, or null when there is nothing to add
         */
        default String holdsWorker() {
            return null;
        }
    }
}
