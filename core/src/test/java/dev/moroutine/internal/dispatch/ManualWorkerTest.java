package dev.moroutine.internal.dispatch;

import static dev.moroutine.Moroutine.mo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.moroutine.Mo1;
import dev.moroutine.internal.call.Call;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The test backend's own bookkeeping, where a run ends in a {@link VirtualMachineError}. */
@Timeout(60)
class ManualWorkerTest {

    static final Mo1<Integer, Integer> square = mo(x -> x * x);
    static final Mo1<Integer, Integer> overflows = mo(x -> {
        throw new StackOverflowError("thrown by the function");
    });

    @Test
    void anErrorFromASettlementListenerAfterTheCountCountsTheTaskOnce() {
        ManualWorker worker = (ManualWorker) new ManualBackend().start("manual", 0, null);
        StackOverflowError fromListener = new StackOverflowError("thrown by the settlement listener");
        Execution<Integer> execution = new Execution<>(Call.of(square.call(3)), null);
        execution.onSettled((value, failure) -> {
            throw fromListener;
        });
        worker.dispatch(execution);
        assertEquals(1, worker.activeCount());

        assertSame(fromListener, assertThrows(StackOverflowError.class, worker::runNext));

        assertEquals(0, worker.activeCount(), "the run counted the task out before it completed, and the error must not count it again");
        assertEquals(9, execution.join());
    }

    @Test
    void anErrorFromTheFunctionFailsTheTaskAndCountsItOnce() {
        ManualWorker worker = (ManualWorker) new ManualBackend().start("manual", 0, null);
        Execution<Integer> execution = new Execution<>(Call.of(overflows.call(1)), null);
        worker.dispatch(execution);

        assertThrows(StackOverflowError.class, worker::runNext);

        assertEquals(0, worker.activeCount());
        assertSame(StackOverflowError.class, assertThrows(Exception.class, execution::join).getCause().getClass());
    }
}
