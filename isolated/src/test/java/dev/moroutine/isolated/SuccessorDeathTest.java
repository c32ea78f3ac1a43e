package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Pool;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A retiring JVM's successor that dies after it is ready but before it takes over: the tasks it
 * was to get must run on another JVM, not be sent to the dead one and fail as if they had run.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SuccessorDeathTest {

    @Test
    void aSuccessorKilledBeforeItTakesOverIsReplacedAndTheQueuedTaskRuns() throws Exception {
        try (Pool pool = Isolated.workers(1, IsolatedOptions.defaults().withMaxTasksPerJvm(2));
                ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            gate.setSoTimeout(60_000);
            long first = pool.run(Jobs.pid.call()); // 1 of its 2 tasks
            CompletableFuture<Integer> blocked = pool.submit(Jobs.block.call(gate.getLocalPort())); // 2 of 2: a successor starts
            CompletableFuture<Integer> behind;
            try (Socket started = gate.accept()) {
                assertEquals(1, started.getInputStream().read(), "the last task of the first JVM has started");
                behind = pool.submit(Jobs.square.call(7)); // waits for the successor
                ProcessHandle successor = awaitOtherChild(first);
                awaitTaken(successor); // connected: the pump took it as ready
                assertTrue(successor.destroyForcibly());
                successor.onExit().get(30, TimeUnit.SECONDS);
                started.getOutputStream().write(1); // the first JVM answers its last task: the hand-over follows
            }
            assertEquals(gate.getLocalPort(), blocked.get(60, TimeUnit.SECONDS));
            assertEquals(49, behind.get(60, TimeUnit.SECONDS), "the task queued for the successor ran");
        }
    }

    private static ProcessHandle awaitOtherChild(long first) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (;;) {
            Optional<ProcessHandle> other = ProcessHandle.current().children().filter(p -> p.pid() != first).findFirst();
            if (other.isPresent()) {
                return other.get();
            }
            assertTrue(System.nanoTime() < deadline, "no successor JVM was started");
            Thread.onSpinWait();
        }
    }

    /** The parent deletes a JVM's private directory (its first argument) once it has taken its connection. */
    private static void awaitTaken(ProcessHandle jvm) {
        Path directory = privateDirectory(jvm);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (Files.exists(directory)) {
            assertTrue(System.nanoTime() < deadline, "the successor was not taken as ready");
            Thread.onSpinWait();
        }
    }

    /**
     * The argument after the JVM's main class. A JVM just forked may still show the command line of
     * the JDK's launch helper (jspawnhelper), or none: it shows its own once it has exec'd java.
     */
    private static Path privateDirectory(ProcessHandle jvm) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (;;) {
            List<String> arguments = jvm.info().arguments().map(List::of).orElse(List.of());
            for (int i = 0; i + 1 < arguments.size(); i++) {
                if (arguments.get(i).endsWith("internal.Child")) {
                    return Path.of(arguments.get(i + 1));
                }
            }
            assertTrue(System.nanoTime() < deadline, "the successor's command line never named its main class: " + arguments);
            Thread.onSpinWait();
        }
    }
}
