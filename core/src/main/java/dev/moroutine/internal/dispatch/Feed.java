package dev.moroutine.internal.dispatch;

/**
 * What a thread does itself while it waits, between its looks at what it waits for, so that the
 * thing it waits for needs no hand-off from another thread: a worker JVM's worker thread reads the
 * requests that come from its parent ({@link ThreadWorker#telling}), and a caller waiting for an
 * isolated worker's answer reads that worker's answers ({@link Worker#callerFeed()}). Called on
 * the waiting thread, in the order waiting, poll…, stopped, each wait; several threads may wait at
 * once, each with its own calls. None may throw but for a {@link VirtualMachineError}.
 */
public interface Feed {
    /** The thread begins to wait (spinning): from now on it polls. */
    void waiting();

    /**
     * One step of the wait: may do some of the work that ends it.
     *
     * @return whether it found anything to do (the thread looks again without pausing)
     */
    boolean poll();

    /**
     * The thread stops waiting: what it waited for came, or it will park, and then only the thread
     * it waited for wakes it. It polls no more until it waits again.
     */
    void stopped();
}
