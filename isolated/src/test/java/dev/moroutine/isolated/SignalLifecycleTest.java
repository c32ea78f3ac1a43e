package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.AbortController;
import dev.moroutine.Pool;
import dev.moroutine.Signal;
import dev.moroutine.stream.LiveStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Signal arguments on worker JVMs: moments, reasons, user actions and pool lifecycles. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SignalLifecycleTest {

    private static Pool pool;

    @BeforeAll
    static void start() {
        pool = Isolated.workers(2);
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    // ---- reasons ----

    /** A reason crosses whole up to 1,024 characters, else cut there with "…": the same whichever moment it fires at. */
    @Test
    void aLongReasonCrossesCutTheSameWayWhenItFiresBeforeOrAfterTheCall() {
        String reason = "x".repeat(200_000);
        String crossed = "x".repeat(1024) + "…";
        AbortController before = new AbortController();
        before.abort(reason);
        assertEquals(SignalJobs.digest(crossed),
                pool.submit(SignalJobs.awaitAbortDigest.call(before.signal())).orTimeout(30, TimeUnit.SECONDS).join());
        AbortController after = new AbortController();
        CompletableFuture<String> result = pool.submit(SignalJobs.awaitAbortDigest.call(after.signal()));
        after.abort(reason);
        assertEquals(SignalJobs.digest(crossed), result.orTimeout(30, TimeUnit.SECONDS).join());
        String exact = "é".repeat(1024);
        AbortController whole = new AbortController();
        result = pool.submit(SignalJobs.awaitAbortDigest.call(whole.signal()));
        whole.abort(exact);
        assertEquals(SignalJobs.digest(exact), result.orTimeout(30, TimeUnit.SECONDS).join(), "1,024 characters cross whole");
    }

    @Test
    void aLongReasonIsNeverCutInsideASurrogatePair() {
        String reason = "a".repeat(1023) + "\uD83D\uDE00" + "tail"; // the 1,024th character is a high surrogate
        AbortController controller = new AbortController();
        CompletableFuture<String> result = pool.submit(SignalJobs.awaitAbortDigest.call(controller.signal()));
        controller.abort(reason);
        assertEquals(SignalJobs.digest("a".repeat(1023) + "…"), result.orTimeout(30, TimeUnit.SECONDS).join());
    }

    @Test
    void aNonAsciiReasonCrossesBeforeAndAfterTheCall() {
        String reason = "arrêt — 停止 🛑";
        AbortController early = new AbortController();
        early.abort(reason);
        assertEquals(reason, pool.submit(Jobs.awaitAbort.call(early.signal())).orTimeout(30, TimeUnit.SECONDS).join());
        AbortController late = new AbortController();
        CompletableFuture<String> result = pool.submit(Jobs.awaitAbort.call(late.signal()));
        late.abort(reason);
        assertEquals(reason, result.orTimeout(30, TimeUnit.SECONDS).join());
    }

    @Test
    void aSignalFiredWhileTheRequestRingIsFullReachesEveryTask() throws Exception {
        Pool one = Isolated.workers(1);
        String payload = "p".repeat(100_000); // ten tasks fill the ring
        try (ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Integer> blocked = one.submit(Jobs.block.call(gate.getLocalPort()));
            try (Socket started = gate.accept()) {
                started.getInputStream().read();
                AbortController controller = new AbortController();
                List<CompletableFuture<String>> waiting = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    waiting.add(one.submit(SignalJobs.awaitAbortWithPayload.call(payload, controller.signal())));
                }
                controller.abort("full");
                started.getOutputStream().write(1);
                for (CompletableFuture<String> result : waiting) {
                    assertEquals("full", result.orTimeout(60, TimeUnit.SECONDS).join());
                }
            }
            blocked.orTimeout(30, TimeUnit.SECONDS).join();
        } finally {
            one.close();
        }
    }

    @Test
    void cancelledTasksLeaveNoActionOnTheirSignal() throws Exception {
        Pool one = Isolated.workers(1);
        SignalTest.CountingSignal signal = new SignalTest.CountingSignal();
        List<CompletableFuture<String>> queued = new ArrayList<>();
        try (ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Integer> blocked = one.submit(Jobs.block.call(gate.getLocalPort()));
            try (Socket started = gate.accept()) {
                started.getInputStream().read();
                for (int i = 0; i < 10; i++) {
                    queued.add(one.submit(Jobs.abortedAtStart.call(signal)));
                }
                for (int i = 0; i < 10; i += 2) {
                    queued.get(i).cancel(true);
                }
                started.getOutputStream().write(1);
            }
            blocked.orTimeout(30, TimeUnit.SECONDS).join();
            for (CompletableFuture<String> result : queued) {
                result.handle((value, failure) -> null).orTimeout(30, TimeUnit.SECONDS).join();
            }
            assertEquals("live", one.run(Jobs.abortedAtStart.call(new AbortController().signal()))); // after every answer
        } finally {
            one.close();
        }
        assertEquals(10, signal.registered.get());
        assertEquals(0, signal.open.get());
    }

    @Test
    void aStreamingTaskStopsWhenItsSignalFires() {
        AbortController controller = new AbortController();
        int taken = 0;
        try (LiveStream<Integer> items = pool.run(SignalJobs.countUntilAborted.call(controller.signal()))) {
            Iterator<Integer> it = items.iterator();
            for (; it.hasNext(); taken++) {
                it.next();
                if (taken == 5) {
                    controller.abort("enough");
                }
            }
        }
        assertTrue(taken < 10_000_000, "the producer in the worker JVM saw its signal fire: " + taken);
    }

    @Test
    void aSignalInsideAnArgumentIsRefusedWithAMessageAboutSignals() {
        Signal signal = new AbortController().signal();
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> pool.run(Jobs.describe.call(List.of(signal))));
        assertEquals("argument 1 of task dev.moroutine.isolated.Jobs#describe cannot cross to isolated worker "
                + pool.workers().get(0).name() + ": it is a java.util.ImmutableCollections$List12, which holds a Signal: a Signal"
                + " crosses only as an argument of its own, not inside another value; pass it to the moroutine as one of its"
                + " arguments", refused.getMessage());
    }

    @Test
    void theSameSignalPassedTwiceFiresBoth() {
        for (int round = 0; round < 20; round++) {
            AbortController controller = new AbortController();
            CompletableFuture<String> result = pool.submit(SignalJobs.awaitBoth.call(controller.signal(), controller.signal()));
            controller.abort("twice " + round);
            assertEquals("twice " + round + "|twice " + round, result.orTimeout(30, TimeUnit.SECONDS).join());
        }
    }

    // ---- a user's action in the worker JVM ----

    @Test
    void anErrorFromAnOnAbortActionInTheWorkerJvmLeavesItServing() throws Exception {
        Pool one = Isolated.workers(1);
        try (ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            long pid = one.run(Jobs.pid.call());
            AbortController controller = new AbortController();
            CompletableFuture<String> result = one.submit(SignalJobs.awaitAbortWithFaultyAction.call(controller.signal(),
                    gate.getLocalPort()));
            try (Socket started = gate.accept()) {
                started.getInputStream().read(); // the task has registered its actions
            }
            controller.abort("stop"); // on threads, the Error would be thrown here, to the caller that fires
            assertEquals("stop", result.orTimeout(30, TimeUnit.SECONDS).join(), "every action ran, as on threads");
            assertEquals(pid, one.submit(Jobs.pid.call()).orTimeout(30, TimeUnit.SECONDS).join(),
                    "the JVM goes on reading tasks: an action's Error is not a reason for it to stop");
        } finally {
            one.terminate();
        }
    }

    // ---- the pool's own signal ----

    @Test
    void thePoolsOwnSignalFiresItsTasksWhenItCloses() {
        Pool own = Isolated.workers(1);
        List<CompletableFuture<String>> waiting = new ArrayList<>();
        for (int i = 0; i < 3; i++) { // one running, two queued
            waiting.add(own.submit(Jobs.awaitAbort.call(own.signal())));
        }
        CompletableFuture<Void> closed = CompletableFuture.runAsync(own::close);
        try {
            for (CompletableFuture<String> result : waiting) {
                String reason = result.orTimeout(30, TimeUnit.SECONDS).join();
                assertEquals(own.signal().reason(), reason);
            }
            closed.orTimeout(30, TimeUnit.SECONDS).join();
        } finally {
            own.terminate();
        }
    }

    // ---- JVMs replaced and retired ----

    @Test
    void aSignalFiredAroundTheDeathOfTheJvmReachesTheTaskOnTheNewOne() {
        try (Pool dying = Isolated.workers(1, IsolatedOptions.defaults().withCrashLimit(1_000, Duration.ofSeconds(1)))) {
            SplittableRandom random = new SplittableRandom(5);
            for (int round = 0; round < 6; round++) {
                AbortController controller = new AbortController();
                String reason = "after death " + round;
                CompletableFuture<Integer> death = dying.submit(Jobs.halt.call(3));
                CompletableFuture<String> result = dying.submit(Jobs.awaitAbort.call(controller.signal()));
                int moment = random.nextInt(3);
                if (moment == 1) {
                    death.handle((value, failure) -> null).orTimeout(30, TimeUnit.SECONDS).join(); // it died; maybe not replaced yet
                }
                controller.abort(reason);
                death.handle((value, failure) -> null).orTimeout(30, TimeUnit.SECONDS).join();
                assertEquals(reason, result.orTimeout(30, TimeUnit.SECONDS).join(), "round " + round + ", moment " + moment);
            }
        }
    }

    @Test
    void aSignalFiredWhileTheJvmRetiresReachesTheTask() {
        try (Pool retiring = Isolated.workers(1, IsolatedOptions.defaults().withMaxTasksPerJvm(2))) {
            SplittableRandom random = new SplittableRandom(7);
            for (int round = 0; round < 10; round++) {
                AbortController controller = new AbortController();
                String reason = "retiring " + round;
                CompletableFuture<Integer> before = retiring.submit(Jobs.square.call(round));
                CompletableFuture<String> result = retiring.submit(Jobs.awaitAbort.call(controller.signal()));
                if (random.nextBoolean()) {
                    before.orTimeout(30, TimeUnit.SECONDS).join();
                }
                controller.abort(reason);
                assertEquals(reason, result.orTimeout(30, TimeUnit.SECONDS).join(), "round " + round);
            }
        }
    }

    // ---- registrations ----

    @Test
    void aTerminatedPoolLeavesNoActionOnTheSignalsOfItsTasks() throws Exception {
        Pool doomed = Isolated.workers(1);
        SignalTest.CountingSignal signal = new SignalTest.CountingSignal();
        List<CompletableFuture<String>> queued = new ArrayList<>();
        try (ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Integer> blocked = doomed.submit(Jobs.block.call(gate.getLocalPort()));
            try (Socket started = gate.accept()) {
                started.getInputStream().read();
                for (int i = 0; i < 5; i++) {
                    queued.add(doomed.submit(Jobs.abortedAtStart.call(signal)));
                }
                doomed.terminate();
                blocked.handle((value, failure) -> null).orTimeout(30, TimeUnit.SECONDS).join();
            }
        } finally {
            doomed.terminate();
        }
        for (CompletableFuture<String> result : queued) {
            result.handle((value, failure) -> null).orTimeout(30, TimeUnit.SECONDS).join();
        }
        assertEquals(5, signal.registered.get());
        assertEquals(0, signal.open.get());
    }

    // ---- user signals that throw: the pump must not fail, nor a count stay behind ----

    @Test
    void aSignalWhoseOnAbortThrowsFailsItsTaskAndLeavesNothingCounted() {
        Pool one = Isolated.workers(1);
        CompletableFuture<String> call = one.submit(Jobs.abortedAtStart.call(new RefusingSignal()));
        CompletionException failed = assertThrows(CompletionException.class, () -> call.orTimeout(30, TimeUnit.SECONDS).join());
        assertEquals("argument 1 of task dev.moroutine.isolated.Jobs#abortedAtStart is a Signal whose onAbort(…) threw, so isolated"
                + " worker " + one.workers().get(0).name() + " cannot tell the task when it fires: java.lang.IllegalStateException:"
                + " this signal takes no more actions", failed.getCause().getMessage());
        assertEquals(9, one.submit(Jobs.square.call(3)).orTimeout(30, TimeUnit.SECONDS).join(), "the worker goes on");
        assertTimeoutPreemptively(Duration.ofSeconds(30), one::close, "close() waits for no task left counted");
    }

    @Test
    void aSignalWhoseRegistrationThrowsOnCloseDoesNotStopTheWorker() {
        Pool one = Isolated.workers(1);
        try {
            assertEquals("live", one.submit(Jobs.abortedAtStart.call(new ThrowingCloseSignal())).orTimeout(30, TimeUnit.SECONDS).join(),
                    "the task is answered although closing its registration threw on the pump");
            assertEquals(9, one.submit(Jobs.square.call(3)).orTimeout(30, TimeUnit.SECONDS).join(), "and the worker goes on");
        } finally {
            one.terminate();
        }
    }

    /** A user signal that cannot take actions any more, say an adapter whose source was closed. */
    static final class RefusingSignal extends SignalTest.CountingSignal {
        @Override
        public Registration onAbort(Runnable action) {
            throw new IllegalStateException("this signal takes no more actions");
        }
    }

    /** A user signal whose registrations throw when closed. */
    static final class ThrowingCloseSignal extends SignalTest.CountingSignal {
        @Override
        public Registration onAbort(Runnable action) {
            return () -> {
                throw new IllegalStateException("closing a registration failed");
            };
        }
    }
}
