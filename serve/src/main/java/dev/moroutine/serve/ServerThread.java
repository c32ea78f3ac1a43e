package dev.moroutine.serve;

import dev.moroutine.WorkerHandle;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One worker of a {@link Server} with its connections, as a {@link ConnectionBalancer} and
 * {@link Server#threads()} see it. The counts are live: each reading is a snapshot that may be
 * stale by the time it is used.
 */
public final class ServerThread {

    private final WorkerHandle worker;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong served = new AtomicLong();

    ServerThread(WorkerHandle worker) {
        this.worker = worker;
    }

    /**
     * The pool worker that runs the requests of this thread's connections.
     *
     * @return the worker's handle
     */
    public WorkerHandle worker() {
        return worker;
    }

    /**
     * The connections given to this worker that are open now.
     *
     * @return the open connection count
     */
    public int connections() {
        return open.get();
    }

    /**
     * The connections given to this worker since the server started, open or closed.
     *
     * @return the accepted connection count
     */
    public long acceptedConnections() {
        return accepted.get();
    }

    /**
     * The requests this worker has answered, with the handler's response or with a 500 when it failed.
     *
     * @return the answered request count
     */
    public long requestsServed() {
        return served.get();
    }

    void opened() {
        accepted.incrementAndGet();
        open.incrementAndGet();
    }

    void closed() {
        open.decrementAndGet();
    }

    void served() {
        served.incrementAndGet();
    }

    @Override
    public String toString() {
        return worker + ": " + connections() + " open, " + acceptedConnections() + " accepted, " + requestsServed() + " served";
    }
}
