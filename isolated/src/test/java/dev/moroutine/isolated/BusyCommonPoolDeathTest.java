package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.moroutine.Pool;
import dev.moroutine.WorkerDiedException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker JVM killed while the request ring is full and every thread of the common pool is busy
 * (as when {@code close()} runs there, from {@code CompletableFuture.runAsync}): the pump must still
 * see the death, fail the running task and give the rest to a new JVM.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BusyCommonPoolDeathTest {

    @Test
    void aJvmKilledWithAFullRequestRingIsNoticedWhileTheCommonPoolIsBusy() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        int parallelism = ForkJoinPool.getCommonPoolParallelism();
        CountDownLatch busy = new CountDownLatch(parallelism);
        for (int i = 0; i < parallelism; i++) {
            ForkJoinPool.commonPool().execute(() -> {
                busy.countDown();
                awaitUninterruptibly(release);
            });
        }
        Pool pool = Isolated.workers(1, IsolatedOptions.defaults().withCrashLimit(1_000, Duration.ofSeconds(1)));
        try {
            assertTrue(busy.await(30, TimeUnit.SECONDS), "the common pool's threads are all busy");
            long pid = pool.run(Jobs.pid.call());
            signal("-STOP", pid); // its reader no longer empties the request ring
            List<CompletableFuture<String>> tasks = new ArrayList<>();
            for (int i = 0; i < 40; i++) { // 40 requests of 60 KB: more than the 1 MB ring holds
                tasks.add(pool.submit(Jobs.describe.call(i + "x".repeat(60_000))));
            }
            ProcessHandle.of(pid).orElseThrow().destroyForcibly();
            try {
                tasks.get(0).get(30, TimeUnit.SECONDS);
                fail("the first task sent to a JVM that was killed before it read it ran");
            } catch (ExecutionException died) {
                assertInstanceOf(WorkerDiedException.class, died.getCause());
            } catch (TimeoutException unnoticed) {
                fail("the pump did not notice within 30 s that its JVM (pid " + pid + ") was killed: "
                        + pumpStack() + "; active count " + pool.workers().get(0).activeCount());
            }
            for (int i = 1; i < tasks.size(); i++) {
                assertTrue(tasks.get(i).get(30, TimeUnit.SECONDS).startsWith(String.valueOf(i)), "task " + i + " ran on a new JVM");
            }
        } finally {
            release.countDown(); // first: the pool's close() may need the common pool (see the failure)
            pool.close();
        }
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).inheritIO().start();
        assertTrue(kill.waitFor(30, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill " + signal + " " + pid);
    }

    private static String pumpStack() {
        StringBuilder out = new StringBuilder();
        for (ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(false, false)) {
            if (thread.getThreadName().endsWith("-pump") || thread.getThreadName().startsWith("ForkJoinPool.common")) {
                out.append("\n").append(thread.getThreadName()).append(' ').append(thread.getThreadState());
                for (StackTraceElement frame : thread.getStackTrace()) {
                    out.append("\n    at ").append(frame);
                }
            }
        }
        return out.toString();
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        for (;;) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
