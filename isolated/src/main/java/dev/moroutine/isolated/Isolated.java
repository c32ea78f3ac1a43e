package dev.moroutine.isolated;

import dev.moroutine.Pool;
import dev.moroutine.PoolOptions;
import dev.moroutine.internal.call.WorkerPool;
import dev.moroutine.internal.shared.SharedFiles;
import dev.moroutine.isolated.internal.Child;
import dev.moroutine.isolated.internal.IsolatedBackend;
import dev.moroutine.isolated.internal.Settings;
import dev.moroutine.shared.Shared;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Pools whose workers are child JVMs: the same {@code static final} moroutines, run, submitted,
 * balanced and {@linkplain dev.moroutine.Moroutine#assign assigned} as on a pool of threads, but
 * each worker in its own process, with its own heap and garbage collector. A task that crashes or
 * hangs its JVM ({@code System.exit}, a native crash, an endless loop that ignores interrupts) takes
 * only that worker down: its task fails with a {@link dev.moroutine.WorkerDiedException} that
 * names the task, the exit status and the JVM's last lines of output, and a new JVM replaces it. A
 * task timeout ({@link PoolOptions#withTaskTimeout}, {@link dev.moroutine.Task#withTimeout}) kills
 * and replaces the worker JVM, so it stops any task.
 *
 * <pre>{@code
 * try (Pool pool = Isolated.workers(2)) {
 *     int squared = pool.run(Jobs.square.call(7));
 * }
 * }</pre>
 *
 * <p>Each worker JVM runs on the JDK this JVM runs on, with its class path, module path and module
 * options, so it finds the moroutine by its id ({@code class#field}). Arguments and results are
 * copied, encoded with Apache Fory: register your own classes with {@link IsolatedOptions#register};
 * an argument that cannot cross fails the call. Task-args are resolved and cached in the worker JVM
 * and closed when it stops. Streaming moroutines, stream and channel arguments and {@code map}
 * work as on threads, their items crossing in batches with credit-based flow control. A
 * {@link dev.moroutine.Signal} argument stays live: the task gets a signal of its worker JVM's,
 * fired there when the one passed in fires here. A signal or a stream given to a task-arg does not
 * cross yet: such a task is refused when it is run or submitted. Shared values ({@code dev.moroutine.shared}) cross as the same memory: while an
 * isolated pool is open, {@code shared(…)} allocates from files that its worker JVMs map (in a
 * private directory, deleted when the last isolated pool closes); waits and wakes on them reach
 * the other processes through the kernel's futex (Linux).
 *
 * <p>This JVM needs {@code --add-exports java.base/jdk.internal.misc=org.agrona} (on the class path:
 * {@code =ALL-UNNAMED}) on its command line, for the shared-memory rings (Agrona); the worker JVMs
 * get it by themselves. A worker JVM's stdin is the library's: it exits when its parent dies.
 * Shared values cross only when this JVM also has {@code --enable-native-access=dev.moroutine}
 * ({@code =ALL-UNNAMED} on the class path): the cross-process futex is a restricted method; without
 * the flag the pool works, and passing a shared value fails with a message that names the flag.
 */
public final class Isolated {

    private static final AtomicInteger POOLS = new AtomicInteger();

    private Isolated() {}

    /**
     * Makes a pool of {@code size} worker JVMs with the default options.
     *
     * @param size the number of worker JVMs
     * @return the pool, its workers ready; close it with try-with-resources
     * @throws IllegalArgumentException if {@code size} is less than 1
     * @throws IllegalStateException if a worker JVM could not start (the message has its output),
     *     or this JVM lacks the {@code --add-exports} option above
     */
    public static Pool workers(int size) {
        return workers(size, IsolatedOptions.defaults());
    }

    /**
     * Makes a pool of {@code size} worker JVMs. They start at the same time; this returns when all
     * are ready.
     *
     * @param size the number of worker JVMs
     * @param options the pool's options and how its JVMs start
     * @return the pool, its workers ready; close it with try-with-resources
     * @throws IllegalArgumentException if {@code size} is less than 1
     * @throws IllegalStateException if a worker JVM could not start (the message has its output),
     *     or this JVM lacks the {@code --add-exports} option above
     * @throws NullPointerException if {@code options} is null
     */
    public static Pool workers(int size, IsolatedOptions options) {
        Objects.requireNonNull(options, "options");
        if (size < 1) {
            throw new IllegalArgumentException("a pool needs at least 1 worker, was asked for " + size);
        }
        checkAgronaAccess();
        PoolOptions pool = options.poolOptions();
        List<String> jvmOptions = new ArrayList<>();
        // After an OutOfMemoryError a JVM's state is unknown (any thread, the library's too, may have
        // failed half-way): the worker JVM exits, its task fails with the death's message, and a
        // fresh JVM replaces it. Options given with withJvmOptions come later and may turn it off.
        jvmOptions.add("-XX:+ExitOnOutOfMemoryError");
        Path sharedFiles = enableSharedFiles();
        if (sharedFiles != null) {
            jvmOptions.add("-D" + Child.SHARED_DIRECTORY + "=" + sharedFiles);
        }
        Module core = Shared.class.getModule();
        jvmOptions.add("--enable-native-access=" + (core.isNamed() ? core.getName() : "ALL-UNNAMED")); // the futex
        options.maxHeap().ifPresent(heap -> jvmOptions.add("-Xmx" + heap));
        for (Map.Entry<String, String> property : options.systemProperties().entrySet()) {
            jvmOptions.add("-D" + property.getKey() + "=" + property.getValue());
        }
        jvmOptions.addAll(options.jvmOptions());
        IsolatedBackend backend;
        WorkerPool made;
        try {
            backend = new IsolatedBackend(new Settings(List.copyOf(jvmOptions), options.environment(),
                    options.registered(), options.startTimeout(), options.crashLimit(), options.crashWindow(),
                    options.maxTasksPerJvm().orElse(0), options.idleTimeout().orElse(null)));
        } catch (RuntimeException | Error e) {
            SharedFiles.disable();
            throw e;
        }
        try {
            made = new WorkerPool(size, pool.balancer(), pool.shutdownTimeout().orElse(null),
                    pool.threadNamePrefix().orElse("moroutine-isolated-" + POOLS.incrementAndGet()), pool.highWaterMark(),
                    pool.taskTimeout().orElse(null), backend);
        } catch (RuntimeException | Error e) {
            backend.releaseShared();
            throw e;
        }
        try {
            backend.awaitReady();
        } catch (InterruptedException e) {
            made.terminate();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the worker JVMs of " + made + " started", e);
        } catch (RuntimeException | Error e) {
            made.terminate();
            throw e;
        }
        return made;
    }

    /** While a pool is open, shared values are allocated where its worker JVMs can map them. */
    private static Path enableSharedFiles() {
        try {
            return SharedFiles.enable();
        } catch (UnsupportedOperationException notLinux) {
            return null; // shared values stay in this JVM: passing one to a task fails with the reason
        } catch (IOException e) {
            throw new IllegalStateException("could not make the private directory for shared memory: " + e, e);
        }
    }

    private static void checkAgronaAccess() {
        Module agrona = UnsafeBuffer.class.getModule();
        if (!Object.class.getModule().isExported("jdk.internal.misc", agrona)) {
            throw new IllegalStateException("isolated workers share memory with their JVMs through Agrona, which needs"
                    + " this JVM to be started with --add-exports java.base/jdk.internal.misc="
                    + (agrona.isNamed() ? agrona.getName() : "ALL-UNNAMED"));
        }
    }
}
