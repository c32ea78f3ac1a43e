package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Pool;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a pool's pump costs while it waits: nothing when idle (nor does an idle worker JVM), next
 * to nothing while the request ring stays full (the README: "the sender sleeps too, for at most
 * 1 ms at a time"), however long the child's reader takes to make room. Each test measures the pump thread's CPU time over a
 * window of wall time; the window is the measurement, not a wait for an event.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PumpCpuTest {

    private static final long WINDOW_NANOS = 2_000_000_000L;

    @Test
    void aPumpWaitingOnAFullRingCostsNextToNoCpu() throws Exception {
        String big = "x".repeat(100_000); // about ten fill the 1 MiB request ring
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults().register(FaultJobs.Gate.class));
                ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<String> held = pool.submit(Jobs.describe.call(new FaultJobs.Gate(gate.getLocalPort())));
            try (Socket reader = gate.accept()) {
                assertEquals(1, reader.getInputStream().read(), "the reader decodes the first task: it is held");
                List<CompletableFuture<String>> queued = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    queued.add(pool.submit(Jobs.describe.call(i + big)));
                }
                double share = pumpCpuShare(pool, 500_000_000L, "while the request ring is full"); // the pump fills it first
                reader.getOutputStream().write(1);
                assertEquals("gate", held.get(60, TimeUnit.SECONDS));
                for (int i = 0; i < queued.size(); i++) {
                    assertEquals(i + big, queued.get(i).get(60, TimeUnit.SECONDS));
                }
                assertTrue(share < 0.08, String.format("the pump, sleeping on a full ring, used %.1f%% of a core", 100 * share));
            }
        }
    }

    @Test
    void anIdlePumpCostsNoCpu() throws Exception {
        try (Pool pool = Isolated.workers(1)) {
            for (int i = 0; i < 1000; i++) {
                assertEquals(i * i, pool.run(Jobs.square.call(i)));
            }
            double share = pumpCpuShare(pool, 100_000_000L, "idle");
            assertTrue(share < 0.01, String.format("an idle pump used %.2f%% of a core", 100 * share));
        }
    }

    @Test
    void anIdleWorkerJvmCostsNoCpu() throws Exception {
        try (Pool pool = Isolated.workers(1)) {
            long pid = pool.run(Jobs.pid.call());
            for (int i = 0; i < 1000; i++) {
                assertEquals(i * i, pool.run(Jobs.square.call(i))); // read by its worker thread, its reader asleep
            }
            ProcessHandle child = ProcessHandle.of(pid).orElseThrow();
            window(500_000_000L); // the compiler may still be at work on what just ran
            long cpu0 = child.info().totalCpuDuration().orElseThrow().toNanos();
            long wall0 = System.nanoTime();
            window(WINDOW_NANOS);
            long cpu = child.info().totalCpuDuration().orElseThrow().toNanos() - cpu0;
            double share = (double) cpu / (System.nanoTime() - wall0);
            System.out.printf("idle worker JVM CPU: %.3f ms%n", cpu / 1e6);
            // Its JVM's own threads (the compiler, the GC) may wake now and then; a spinning reader or worker thread would take 100%.
            assertTrue(share < 0.03, String.format("an idle worker JVM used %.2f%% of a core", 100 * share));
        }
    }

    /**
     * The share of a core the pump thread of the pool's one worker uses over {@link #WINDOW_NANOS} of
     * wall time, which begins after {@code settleNanos}.
     */
    private static double pumpCpuShare(Pool pool, long settleNanos, String when) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        String name = pool.workers().getFirst().name() + "-pump";
        Thread pump = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(name)).findFirst().orElseThrow();
        window(settleNanos);
        long cpu0 = mx.getThreadCpuTime(pump.threadId());
        long wall0 = System.nanoTime();
        window(WINDOW_NANOS);
        long cpu = mx.getThreadCpuTime(pump.threadId()) - cpu0;
        long wall = System.nanoTime() - wall0;
        System.out.printf("pump CPU %s: %.3f ms in %.1f ms%n", when, cpu / 1e6, wall / 1e6);
        return (double) cpu / wall;
    }

    /** Lets {@code nanos} of wall time pass: the window a CPU share is measured over. */
    private static void window(long nanos) {
        long end = System.nanoTime() + nanos;
        for (long left; (left = end - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(left);
        }
    }
}
