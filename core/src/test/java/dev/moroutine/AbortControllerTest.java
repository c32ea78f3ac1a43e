package dev.moroutine;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class AbortControllerTest {

    @Test
    void firesOnceWithTheFirstReason() {
        AbortController controller = new AbortController();
        Signal signal = controller.signal();
        assertFalse(signal.aborted());
        assertNull(signal.reason());
        signal.throwIfAborted();
        AtomicInteger runs = new AtomicInteger();
        signal.onAbort(runs::incrementAndGet);

        controller.abort("first");
        controller.abort("second");

        assertTrue(signal.aborted());
        assertEquals("first", signal.reason());
        assertEquals(1, runs.get());
        CancellationException e = assertThrows(CancellationException.class, signal::throwIfAborted);
        assertEquals("signal aborted: first", e.getMessage());
    }

    @Test
    void actionsRegisteredAfterFiringRunAtOnceAndClosedOnesNever() {
        AbortController controller = new AbortController();
        AtomicInteger removed = new AtomicInteger();
        controller.signal().onAbort(removed::incrementAndGet).close();
        controller.abort();
        assertEquals(0, removed.get());
        AtomicInteger late = new AtomicInteger();
        controller.signal().onAbort(late::incrementAndGet);
        assertEquals(1, late.get());
        assertEquals("aborted", controller.signal().reason());
    }

    @Test
    void aThrowingActionDoesNotStopTheOthers() {
        AbortController controller = new AbortController();
        AtomicInteger runs = new AtomicInteger();
        controller.signal().onAbort(() -> {
            throw new IllegalStateException("listener bug");
        });
        controller.signal().onAbort(runs::incrementAndGet);
        controller.abort();
        assertEquals(1, runs.get());
    }

    /** Registration racing the abort: every action runs exactly once, none is lost. */
    @RepeatedTest(200)
    void noActionIsLostOrRunTwiceWhenRegistrationRacesTheAbort() throws Exception {
        AbortController controller = new AbortController();
        int actions = 50;
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> registrars = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            registrars.add(Thread.ofPlatform().start(() -> {
                awaitQuietly(go);
                for (int i = 0; i < actions; i++) controller.signal().onAbort(runs::incrementAndGet);
            }));
        }
        Thread aborter = Thread.ofPlatform().start(() -> {
            awaitQuietly(go);
            controller.abort();
        });
        go.countDown();
        for (Thread t : registrars) t.join();
        aborter.join();
        assertEquals(2 * actions, runs.get());
    }

    @Test
    void nullsAreRefused() {
        AbortController controller = new AbortController();
        assertEquals("reason", assertThrows(NullPointerException.class, () -> controller.abort(null)).getMessage());
        assertEquals("action", assertThrows(NullPointerException.class, () -> controller.signal().onAbort(null)).getMessage());
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
