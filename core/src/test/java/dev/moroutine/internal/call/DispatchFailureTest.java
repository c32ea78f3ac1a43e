package dev.moroutine.internal.call;

import static dev.moroutine.Moroutine.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Mo2;
import dev.moroutine.Pool;
import dev.moroutine.internal.dispatch.Endpoint;
import dev.moroutine.internal.dispatch.Execution;
import dev.moroutine.internal.dispatch.StreamArg;
import dev.moroutine.internal.dispatch.Worker;
import dev.moroutine.testing.NoLeakedWorkers;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** What a dispatch that fails part-way leaves behind. */
@ExtendWith(NoLeakedWorkers.class)
@Timeout(60)
class DispatchFailureTest {

    static final Mo2<Object, Object, Object> twoStreams = mo((a, b) -> null);

    /** An endpoint whose binding records its completion, and may fail when its task is admitted. */
    private record Recording(CompletableFuture<Throwable> completed, Error onAdmission) implements Endpoint {
        @Override
        public Endpoint.Binding bind(dev.moroutine.internal.dispatch.Invocation consumer) {
            return new Endpoint.Binding() {
                @Override
                public void admitted() {
                    if (onAdmission != null) {
                        throw onAdmission;
                    }
                }

                @Override
                public Object open(Worker worker) {
                    return null;
                }

                @Override
                public void completed(Throwable failure) {
                    completed.complete(failure);
                }
            };
        }
    }

    /**
     * A binding that attached at admission (a channel's consumer end) must be released when a later
     * binding's admission throws an Error (a channel source that cannot start): the execution is
     * never queued, so nothing else would complete it, and the channel would feed an end nobody reads.
     */
    @Test
    void anErrorWhileAdmittingReleasesTheEndpointsAttachedBeforeIt() {
        OutOfMemoryError noThread = new OutOfMemoryError("unable to create native thread");
        Definition definition = new Definition(twoStreams, Definition.callSite(Pool.class), args -> null);
        try (Pool pool = workers(1)) {
            Worker worker = (Worker) pool.workers().get(0);
            for (int round = 0; round < 100; round++) {
                Recording attached = new Recording(new CompletableFuture<>(), null);
                Recording failing = new Recording(new CompletableFuture<>(), noThread);
                Execution<Object> execution = new Execution<>(
                        definition.call(new StreamArg(attached), new StreamArg(failing)), null);
                assertSame(noThread, assertThrows(OutOfMemoryError.class, () -> Call.dispatch(worker, execution)));
                assertTrue(execution.isCompletedExceptionally(), "round " + round + ": the refused execution was left pending");
                assertSame(noThread, execution.exceptionNow());
                assertSame(noThread, attached.completed().getNow(null), "the end attached before the error is released");
                assertSame(noThread, failing.completed().getNow(null));
            }
        }
    }
}
