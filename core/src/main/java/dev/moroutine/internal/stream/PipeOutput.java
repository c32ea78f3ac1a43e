package dev.moroutine.internal.stream;

import dev.moroutine.internal.dispatch.Endpoint;
import dev.moroutine.internal.dispatch.Worker;

/**
 * The output binding of a streaming function that emits into a {@link Pipe}: the function receives
 * the pipe, and a failed or stopped run fails it, so that its consumer (the caller, or a forwarder
 * to another process or machine) gets the items emitted before, then the failure. Immutable; the
 * pipe is what is shared.
 */
public class PipeOutput implements Endpoint.Binding {

    /** The function's pipe. */
    protected final Pipe<Object> pipe;

    /**
     * Binds a pipe.
     *
     * @param pipe the pipe the function emits into
     */
    public PipeOutput(Pipe<Object> pipe) {
        this.pipe = pipe;
    }

    @Override
    public Object open(Worker worker) {
        return pipe;
    }

    @Override
    public void completed(Throwable failure) {
        if (failure != null) {
            pipe.fail(failure); // the producer stops at its next emit; the consumer gets what was emitted, then this
        }
    }
}
