package dev.moroutine.isolated.internal;

import dev.moroutine.internal.call.WorkerPool;
import dev.moroutine.internal.dispatch.Worker;
import dev.moroutine.internal.dispatch.WorkerGroup;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Makes a pool's workers as child JVMs ({@link IsolatedWorker}), and holds what they share: the
 * command line, the codec, and the count of recent deaths that stops a crash loop. A pool that
 * sees {@link Settings#crashLimit()} unexpected deaths within {@link Settings#crashWindow()} stops
 * replacing its workers: every worker stops, failing its tasks with the reason.
 */
public final class IsolatedBackend implements WorkerPool.Backend {

    private final Settings settings;
    private final Launcher launcher;
    private final Retirement retirement;
    /** Built while the worker JVMs start, which are built the same way: both take a few hundred milliseconds. */
    private final CompletableFuture<Codec> codec;
    private final List<String> typeNames;
    private final List<IsolatedWorker> workers = new CopyOnWriteArrayList<>();
    /** Workers not stopped yet; the last one to stop releases the pool's hold on the shared files. */
    private final java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicBoolean sharedReleased = new java.util.concurrent.atomic.AtomicBoolean();
    /** When the recent unexpected deaths happened ({@link System#nanoTime()}); guarded by itself. */
    private final ArrayDeque<Long> deaths = new ArrayDeque<>();

    /**
     * A backend for one pool.
     *
     * @param settings the pool's settings
     */
    public IsolatedBackend(Settings settings) {
        this.settings = settings;
        this.launcher = new Launcher(settings, Child.class);
        this.retirement = new Retirement(settings);
        this.codec = CompletableFuture.supplyAsync(() -> new Codec(settings.types(), Math.max(2, Runtime.getRuntime().availableProcessors())),
                runnable -> Thread.ofPlatform().daemon().name("moroutine-isolated-codec").start(runnable));
        List<String> names = new ArrayList<>();
        for (Class<?> type : settings.types()) {
            names.add(type.getName());
        }
        this.typeNames = List.copyOf(names);
    }

    @Override
    public Worker start(String name, int index, WorkerGroup pool) {
        IsolatedWorker worker = new IsolatedWorker(name, index, pool, this);
        workers.add(worker);
        running.incrementAndGet();
        worker.start();
        return worker;
    }

    /**
     * Waits until every worker's first JVM is ready; they start at the same time.
     *
     * @throws IllegalStateException if one could not start, with its reason
     * @throws InterruptedException if the caller is interrupted
     */
    public void awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.NANOSECONDS.convert(settings.startTimeout()) + TimeUnit.SECONDS.toNanos(5);
        try {
            codec.get();
        } catch (ExecutionException failed) {
            throw new IllegalStateException("the encoding of the pool's tasks could not be set up: " + failed.getCause(),
                    failed.getCause());
        }
        for (IsolatedWorker worker : workers) {
            try {
                worker.ready().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException failed) {
                throw new IllegalStateException(failed.getCause().getMessage(), failed.getCause());
            } catch (TimeoutException late) {
                throw new IllegalStateException(worker.name() + " did not start within " + settings.startTimeout(), late);
            }
        }
    }

    Settings settings() {
        return settings;
    }

    Launcher launcher() {
        return launcher;
    }

    Codec codec() {
        return codec.join();
    }

    /** The worker JVM's arguments: its name, index, stream high-water mark and the registered classes. */
    List<String> arguments(String name, int index, int highWaterMark) {
        List<String> arguments = new ArrayList<>(List.of(name, Integer.toString(index), Integer.toString(highWaterMark)));
        arguments.addAll(typeNames);
        return arguments;
    }

    /** When the workers retire their JVMs. */
    Retirement retirement() {
        return retirement;
    }

    /** A worker stopped for good: the last one releases the shared files (see {@link SharedCrossing}). */
    void workerStopped() {
        if (running.decrementAndGet() == 0) {
            releaseShared();
        }
    }

    /** Releases this pool's hold on the shared files, once: when its workers have stopped, or it failed to start. */
    public void releaseShared() {
        if (sharedReleased.compareAndSet(false, true)) {
            dev.moroutine.internal.shared.SharedFiles.disable();
        }
    }

    /**
     * Counts an unexpected death; at the crash limit, stops every worker of the pool.
     *
     * @param what the death, for the message
     * @return the crash-loop message if this death stopped the pool, else null
     */
    String died(String what) {
        long now = System.nanoTime();
        long window = TimeUnit.NANOSECONDS.convert(settings.crashWindow());
        String crashLoop;
        synchronized (deaths) {
            deaths.addLast(now);
            while (now - deaths.peekFirst() > window) {
                deaths.removeFirst();
            }
            if (deaths.size() < settings.crashLimit()) {
                return null;
            }
            crashLoop = "the pool stopped replacing its worker JVMs: " + deaths.size() + " died within "
                    + settings.crashWindow() + ", the last one " + what + "; fix the cause and make a new pool"
                    + " (IsolatedOptions.withCrashLimit sets how many deaths it takes)";
        }
        for (IsolatedWorker worker : workers) {
            worker.crashLoop(crashLoop);
        }
        return crashLoop;
    }
}
