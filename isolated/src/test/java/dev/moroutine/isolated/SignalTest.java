package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.moroutine.AbortController;
import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import dev.moroutine.Signal;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A {@link Signal} passed to a task on a worker JVM stays live there: firing it here fires it there. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SignalTest {

    private static Pool pool;

    @BeforeAll
    static void start() {
        pool = Isolated.workers(2);
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @Test
    void aSignalFiredHereFiresInTheWorkerJvmWhateverTheMoment() {
        SplittableRandom random = new SplittableRandom(11);
        for (int round = 0; round < 200; round++) {
            AbortController controller = new AbortController();
            String reason = "round " + round;
            int moment = random.nextInt(3);
            if (moment == 0) {
                controller.abort(reason); // before the call
            }
            CompletableFuture<String> result = pool.submit(Jobs.awaitAbort.call(controller.signal()));
            if (moment == 2) {
                Thread.onSpinWait(); // the task may be queued, sent or running: every order must work
            }
            controller.abort(reason);
            assertEquals(reason, result.orTimeout(30, TimeUnit.SECONDS).join(), "round " + round + ", moment " + moment);
        }
    }

    @Test
    void aSignalFiredBeforeTheCallIsFiredWhenTheTaskStarts() {
        AbortController controller = new AbortController();
        controller.abort("early");
        assertEquals("fired: early", pool.run(Jobs.abortedAtStart.call(controller.signal())));
        assertEquals("live", pool.run(Jobs.abortedAtStart.call(new AbortController().signal())));
    }

    @Test
    void oneSignalFiresTasksOnBothWorkerJvms() {
        AbortController controller = new AbortController();
        List<CompletableFuture<String>> waiting = new ArrayList<>();
        for (var worker : pool.workers()) {
            for (int i = 0; i < 3; i++) { // one running, two queued behind it, on each JVM
                waiting.add(pool.submit(Moroutine.assign(worker, Jobs.awaitAbort.call(controller.signal()))));
            }
        }
        controller.abort("all of them");
        for (CompletableFuture<String> result : waiting) {
            assertEquals("all of them", result.orTimeout(30, TimeUnit.SECONDS).join());
        }
    }

    @Test
    void aTaskLeavesNoActionOnTheSignalItWasGiven() {
        CountingSignal signal = new CountingSignal();
        for (int i = 0; i < 100; i++) {
            assertEquals("live", pool.run(Jobs.abortedAtStart.call(signal)));
        }
        assertEquals(100, signal.registered.get());
        assertEquals(0, signal.open.get(), "every registration closed once, when its task settled (before its future completed)");
    }

    /** A signal that never fires and counts the actions registered on it. */
    static class CountingSignal implements Signal {
        final AtomicInteger registered = new AtomicInteger();
        final AtomicInteger open = new AtomicInteger();

        @Override
        public boolean aborted() {
            return false;
        }

        @Override
        public String reason() {
            return null;
        }

        @Override
        public void throwIfAborted() {}

        @Override
        public Registration onAbort(Runnable action) {
            registered.incrementAndGet();
            open.incrementAndGet();
            return open::decrementAndGet; // closed twice, it would go below 0
        }
    }
}
