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
 * What a pool's pump costs while it waits: nothing when idle, next to nothing while the request
 * ring stays full (the README: "the sender sleeps too, for at most 1 ms at a time"), however long
 * the child's reader takes to make room. Each test measures the pump thread's CPU time over a
 * window of wall time; the window is the measurement, not a wait for an event.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PumpCpuTest {

    private static final long WINDOW_NANOS = 2_000_000_000L;

    @Test
    void aPumpWaitingOnAFullRingCostsNextToNoCpu() throws Exception {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
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
                Thread pump = Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().endsWith("-pump")).findFirst().orElseThrow();
                // Let the pump fill the ring and settle (a measurement window, not a wait for an event).
                window(500_000_000L);
                long cpu0 = mx.getThreadCpuTime(pump.threadId());
                long wall0 = System.nanoTime();
                window(WINDOW_NANOS);
                long cpu = mx.getThreadCpuTime(pump.threadId()) - cpu0;
                long wall = System.nanoTime() - wall0;
                double share = (double) cpu / wall;
                System.out.printf("pump CPU while the request ring is full: %.1f ms in %.1f ms (%.1f%%)%n",
                        cpu / 1e6, wall / 1e6, 100 * share);
                reader.getOutputStream().write(1);
                assertEquals("gate", held.get(60, TimeUnit.SECONDS));
                for (int i = 0; i < queued.size(); i++) {
                    assertEquals(i + big, queued.get(i).get(60, TimeUnit.SECONDS));
                }
                assertTrue(share < 0.05, String.format("the pump, sleeping on a full ring, used %.1f%% of a core", 100 * share));
            }
        }
    }

    @Test
    void anIdlePumpCostsNoCpu() throws Exception {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        try (Pool pool = Isolated.workers(1)) {
            for (int i = 0; i < 1000; i++) {
                assertEquals(i * i, pool.run(Jobs.square.call(i)));
            }
            Thread pump = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().endsWith("-pump")).findFirst().orElseThrow();
            window(100_000_000L);
            long cpu0 = mx.getThreadCpuTime(pump.threadId());
            long wall0 = System.nanoTime();
            window(WINDOW_NANOS);
            long cpu = mx.getThreadCpuTime(pump.threadId()) - cpu0;
            long wall = System.nanoTime() - wall0;
            System.out.printf("idle pump CPU: %.3f ms in %.1f ms%n", cpu / 1e6, wall / 1e6);
            assertTrue(cpu < wall / 100, "an idle pump used " + cpu + " ns");
        }
    }

    /** Lets {@code nanos} of wall time pass: the window a CPU share is measured over. */
    private static void window(long nanos) {
        long end = System.nanoTime() + nanos;
        for (long left; (left = end - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(left);
        }
    }
}
