package dev.moroutine.cluster.internal;

import static dev.moroutine.stream.Streaming.streaming;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.internal.call.Call;
import dev.moroutine.internal.dispatch.Execution;
import dev.moroutine.internal.stream.Pipe;
import dev.moroutine.isolated.internal.Codec;
import dev.moroutine.stream.StreamMo1;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pull whose linger passed with nothing and whose first item comes less than a linger before its
 * deadline lingers only until the deadline, parked: it used to set its linger's end past the
 * deadline, and then each wait for the batch, given the deadline, returned at once, so the pull's
 * thread spun until the linger's end and answered up to a millisecond late. The pull runs on this
 * thread, which is also the pipe's producer: a hook that the pipe runs on the pull's thread as it
 * announces each wait ({@link Pipe#wakeOnConsumption(Runnable)}) emits the item 200 µs before the
 * deadline, at the pull's wait for a first item. The CPU time the thread then spends is the test's
 * measure, not the wall-clock time: a loaded machine makes the answer late either way, but takes
 * CPU time from a spinning thread, never gives it to a parked one.
 */
@Timeout(60)
class StreamServerDeadlineTest {

    static {
        // the moroutine below is looked up by the core module: open this test package to it
        StreamServer.class.getModule().addOpens(StreamServer.class.getPackageName(), Call.class.getModule());
    }

    static final StreamMo1<String, Integer> NEVER_RUN = streaming((String key) -> Stream.<Integer>empty());

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    @Test
    void aPullWhoseFirstItemComesJustBeforeItsDeadlineParksUntilItAndDoesNotSpinPastIt() throws Exception {
        StreamServer server = new StreamServer(16, "review stream", new Codec(List.of(), 2), "member",
                failed -> new byte[] {MemberSide.FAILURE}, () -> new byte[] {MemberSide.CANCELLED});
        server.start(new Execution<>(Call.of(NEVER_RUN.call("x")), server));
        @SuppressWarnings("unchecked")
        Pipe<Object> pipe = (Pipe<Object>) server.open(null);
        pipe.producedElsewhere(); // the hook below arms wakeOnConsumption

        long sent = 0;
        // Warm up the pull path and the encoder. This thread is the pipe's producer and its consumer.
        for (int i = 0; i < 200; i++) {
            pipe.emit(i);
            sent += ByteBuffer.wrap(server.pull(sent)).getInt(1);
        }

        // The hook: a producer "waiting elsewhere" (wakeOnConsumption) is woken by the consumer's announcement
        // that it parks, on the consumer's (the pull's) thread. At the pull's first awaitReady (its linger
        // over with nothing taken), the hook waits until just before the pull's deadline, emits one item
        // there, and notes the thread's CPU time: from then on, a pull that parks until its deadline and
        // answers costs its thread some tens of µs; one that busy-loops until lingerEnd (~1 ms past its
        // deadline) costs what the scheduler gives it of that millisecond.
        List<String> measured = new ArrayList<>();
        List<Long> cpus = new ArrayList<>();
        for (int attempt = 0; attempt < 9; attempt++) {
            pipe.acknowledge(sent); // the pull's own acknowledgement then wakes nothing: its first wait runs the hook first
            long[] firstHook = {0};
            long[] cpuMark = {-1};
            long[] emittedAt = {0};
            List<Long> trace = new ArrayList<>();
            Runnable[] hook = new Runnable[1];
            hook[0] = () -> {
                long now = System.nanoTime();
                if (firstHook[0] == 0) {
                    firstHook[0] = now; // the pull's first wait, within a few µs of its start: its deadline is 200 ms later
                }
                trace.add((now - firstHook[0]) / 1_000);
                if (cpuMark[0] < 0 && StackWalker.getInstance().walk(frames -> frames.anyMatch(f -> f.getMethodName().equals("awaitReady")))) {
                    long emitAt = firstHook[0] + StreamServer.PULL_WAIT_NANOS - TimeUnit.MICROSECONDS.toNanos(200);
                    for (long left; (left = emitAt - TimeUnit.MILLISECONDS.toNanos(1) - System.nanoTime()) > 0; ) {
                        LockSupport.parkNanos(left);
                    }
                    while (System.nanoTime() - emitAt < 0) {
                        Thread.onSpinWait();
                    }
                    pipe.emit(-1);
                    emittedAt[0] = System.nanoTime();
                    cpuMark[0] = THREADS.getCurrentThreadCpuTime();
                }
                pipe.wakeOnConsumption(hook[0]); // again: the next announcement runs it too
            };
            pipe.wakeOnConsumption(hook[0]);
            byte[] answer = server.pull(sent);
            long cpu = THREADS.getCurrentThreadCpuTime() - cpuMark[0];
            long late = System.nanoTime() - (firstHook[0] + StreamServer.PULL_WAIT_NANOS);
            pipe.wakeOnConsumption(() -> {});
            int count = ByteBuffer.wrap(answer).getInt(1);
            sent += count;
            assertEquals(MemberSide.ITEMS, answer[0]);
            assertEquals(1, count, "the one item");
            measured.add("item " + (emittedAt[0] - firstHook[0] - StreamServer.PULL_WAIT_NANOS) / 1_000 + " µs from the deadline; then cpu "
                    + cpu / 1_000 + " µs, answered " + late / 1_000 + " µs after the deadline; hooks at µs " + trace);
            cpus.add(cpu);
        }
        server.close();
        List<Long> sorted = cpus.stream().sorted().toList();
        long median = sorted.get(sorted.size() / 2);
        assertTrue(median < TimeUnit.MICROSECONDS.toNanos(400),
                "past its item, the pull's thread burnt CPU until its linger's end instead of parking until its deadline: median "
                        + median / 1_000 + " µs\n  " + String.join("\n  ", measured));
    }
}
