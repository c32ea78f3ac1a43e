package dev.moroutine.internal.stream;

import dev.moroutine.TaskFailedException;
import dev.moroutine.jcstress.Watchdog;
import java.util.concurrent.CancellationException;

/**
 * The two ends of a {@link Pipe} as the pipe tests' actors use them: every call bounded by the
 * {@link Watchdog}, every ending turned into an outcome code.
 */
final class PipeEnds {

    /** {@link Pipe#next()} returned the end. */
    static final int END = 0;
    /** A call threw the producer's failure, wrapped as it should be. */
    static final int FAILED = -2;
    /** A call threw {@link CancellationException}. */
    static final int CANCELLED = -3;
    /** A call threw a failure that is not the producer's. */
    static final int WRONG_FAILURE = -4;

    /** What the producers of the tests fail with. */
    static final RuntimeException FAILURE = new IllegalStateException("the producer failed");

    private PipeEnds() {}

    /** A pipe of small integers; its description is what messages would show. */
    static Pipe<Integer> pipe(int highWaterMark) {
        return new Pipe<>(highWaterMark, "jcstress pipe");
    }

    /**
     * A pipe whose lazy waits last longer than the watchdog allows: a producer's for the low tide,
     * once a take woke it, which only a take (or an end) can end, and a consumer's for a batch, which
     * only the emit that completes the batch (or an end) can end; so a lost wake-up shows.
     */
    static Pipe<Integer> pipeWithoutLazyTimers(int highWaterMark) {
        return new Pipe<>(highWaterMark, new Pipe.ProducerWait(), "jcstress pipe", false, 4 * Watchdog.LIMIT.toNanos());
    }

    /** The next item, or {@link #END}, {@link #FAILED}, {@link #CANCELLED}, {@link Watchdog#LOST}. */
    static int next(Pipe<Integer> pipe) {
        return Watchdog.bounded(() -> {
            try {
                Object item = pipe.next();
                return item == ItemSource.END ? END : (Integer) item;
            } catch (TaskFailedException failed) {
                return failed.getCause() == FAILURE ? FAILED : WRONG_FAILURE;
            } catch (CancellationException cancelled) {
                return CANCELLED;
            }
        });
    }

    /** Emits {@code items} in turn; returns how many were emitted, or {@link Watchdog#LOST}. */
    static int emit(Pipe<Integer> pipe, int... items) {
        return Watchdog.bounded(() -> {
            int emitted = 0;
            try {
                for (int item : items) {
                    pipe.emit(item);
                    emitted++;
                }
            } catch (CancellationException cancelled) {
                // the consumer closed the pipe: the count says how far the producer got
            }
            return emitted;
        });
    }
}
