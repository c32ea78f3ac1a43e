package dev.moroutine.internal.call;

import static dev.moroutine.Moroutine.mo;

import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import dev.moroutine.Signal;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The {@link java.util.concurrent.ExecutorService} view of a pool, made by
 * {@link Pool#asExecutorService()}. A plain {@link Runnable} is not a moroutine, so each one
 * travels as the argument of one internal moroutine, {@link #RUN}, through the pool's ordinary
 * dispatch (balancer, worker queue); {@link AbstractExecutorService} builds {@code submit},
 * {@code invokeAll} and {@code invokeAny} on {@link #execute}.
 *
 * <h2>Lifecycle</h2>
 * <pre>
 * RUNNING ──shutdown() / shutdownNow() / the pool's signal──► SHUTDOWN ──no task in flight──► TERMINATED
 * </pre>
 * {@code ctl} packs the {@code SHUTDOWN} bit and, below it, the number of accepted tasks not yet
 * finished. {@link #execute} raises the count with a CAS that fails once the bit is set, so a task
 * is either counted before {@code shutdown()} or rejected; whichever update leaves {@code ctl}
 * equal to {@code SHUTDOWN} (the last task's end, or a shutdown with nothing in flight) opens the
 * {@code terminated} latch, exactly once, because nothing can raise the count again.
 *
 * <p>Each accepted task is an {@link Entry} in {@code inFlight} from its acceptance until it
 * returns on its worker, or is taken back: by {@link #shutdownNow()}, or when its execution
 * completes without having started it (the pool stopped first). Not when its execution completes:
 * a timeout or the pool's {@code terminate()} completes the execution of a running task at once,
 * and the view is not terminated while that task still runs. The one removal that succeeds lowers
 * the count, so no task is counted down twice.
 *
 * <h2>A task's state</h2>
 * <pre>
 * NEW ──its worker reaches it──► RUNNING ──► DONE
 *  │                               └──shutdownNow()──► INTERRUPTING ──interrupt sent──► DONE
 *  └──shutdownNow(), or the pool stopped first──► TAKEN_BACK (the worker skips it)
 * </pre>
 * As in {@link java.util.concurrent.FutureTask}, a task that ends while {@code shutdownNow()} is
 * interrupting it waits for the interrupt to land and clears it, so that it cannot hit the task
 * the worker runs next.
 */
final class ExecutorView extends AbstractExecutorService {

    /** Runs a view's task on a worker: the one moroutine every plain {@code Runnable} travels as. */
    private static final Mo1<Runnable, Void> RUN = mo(command -> {
        command.run();
        return null;
    });

    private static final long SHUTDOWN = 1L << 62;

    private static final int NEW = 0;
    private static final int RUNNING = 1;
    private static final int INTERRUPTING = 2;
    private static final int DONE = 3;
    private static final int TAKEN_BACK = 4;

    private static final VarHandle CTL;
    private static final VarHandle STATE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            CTL = lookup.findVarHandle(ExecutorView.class, "ctl", long.class);
            STATE = lookup.findVarHandle(Entry.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Pool pool;
    private final Set<Entry> inFlight = ConcurrentHashMap.newKeySet();
    private final CountDownLatch terminated = new CountDownLatch(1);
    /** Null only while the constructor runs; if the pool's signal fires then, it has dropped the action itself. */
    private final Signal.Registration onPoolClose;
    private volatile long ctl;
    /** Set by {@link #shutdownNow()} before it takes tasks back; read by {@link #execute} after it records one. */
    private volatile boolean stopping;

    ExecutorView(Pool pool) {
        this.pool = pool;
        // The pool's close() or terminate() shuts every view down: it rejects from then on anyway.
        this.onPoolClose = pool.signal().onAbort(this::shutdown);
    }

    @Override
    public void execute(Runnable command) {
        Objects.requireNonNull(command, "command");
        for (long c = ctl; ; c = ctl) {
            if ((c & SHUTDOWN) != 0) {
                throw rejected(command, null);
            }
            if (CTL.weakCompareAndSet(this, c, c + 1)) {
                break;
            }
        }
        Entry entry = new Entry(command);
        inFlight.add(entry);
        if (stopping) { // shutdownNow() raced with this call: one of the two takes the task back
            if (entry.takeBack()) {
                forget(entry);
                throw rejected(command, null);
            }
            return; // shutdownNow() returned it as never started
        }
        CompletableFuture<Void> execution;
        try {
            execution = pool.submit(RUN.call(entry));
        } catch (RuntimeException failure) { // the pool closed before its signal reached this view, or a balancer failed
            if (!entry.takeBack()) {
                return; // shutdownNow() returned it as never started: refusing it too would let its caller run it twice
            }
            forget(entry);
            throw failure instanceof RejectedExecutionException closing ? rejected(command, closing) : failure;
        }
        execution.whenComplete(entry);
    }

    private RejectedExecutionException rejected(Runnable command, RejectedExecutionException cause) {
        String why = pool.isClosed()
                ? "its pool is closed; give tasks to the view before the pool's close(), or make a new pool with workers(n)"
                : "it was shut down; execute tasks before shutdown(), or take a new view with asExecutorService()";
        RejectedExecutionException e = new RejectedExecutionException(this + " cannot run " + command + ": " + why);
        e.initCause(cause);
        return e;
    }

    /** Counts a task out, once, however many paths report its end. */
    private void forget(Entry entry) {
        if (inFlight.remove(entry) && (long) CTL.getAndAdd(this, -1L) - 1 == SHUTDOWN) {
            terminate();
        }
    }

    @Override
    public void shutdown() {
        if ((long) CTL.getAndBitwiseOr(this, SHUTDOWN) == 0) {
            terminate();
        }
    }

    private void terminate() {
        terminated.countDown();
        if (onPoolClose != null) {
            onPoolClose.close();
        }
    }

    /**
     * Shuts down, takes back every task that has not started (in no particular order) and
     * interrupts the running ones.
     */
    @Override
    public List<Runnable> shutdownNow() {
        shutdown();
        stopping = true;
        List<Runnable> neverStarted = new ArrayList<>();
        for (Entry entry : inFlight) {
            if (entry.takeBack()) {
                neverStarted.add(entry.command);
                forget(entry); // now, not when its worker reaches it behind some long task
            } else {
                entry.interrupt();
            }
        }
        return neverStarted;
    }

    /**
     * Shuts down and waits for the view's tasks, as {@link java.util.concurrent.ExecutorService#close()}
     * does, unless it is called from one of them, which would wait for itself forever.
     */
    @Override
    public void close() {
        Thread caller = Thread.currentThread();
        for (Entry entry : inFlight) {
            if (entry.isRunningOn(caller)) {
                throw new IllegalStateException("close() was called by " + entry + ", a task of " + this
                        + ", which would wait for itself; call shutdown() there, or close it from outside its tasks");
            }
        }
        super.close();
    }

    @Override
    public boolean isShutdown() {
        return (ctl & SHUTDOWN) != 0 || pool.isClosed();
    }

    @Override
    public boolean isTerminated() {
        return terminated.getCount() == 0;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return terminated.await(timeout, unit);
    }

    @Override
    public String toString() {
        return "ExecutorService view of " + pool;
    }

    /** One accepted task: the argument of its {@link #RUN} call, and the callback of its execution. */
    private final class Entry implements Runnable, BiConsumer<Object, Throwable> {
        final Runnable command;
        /** Written by the worker before it claims the task, read after a CAS that saw the claim. */
        private Thread runner;
        @SuppressWarnings("unused") // through STATE
        private volatile int state = NEW;

        Entry(Runnable command) {
            this.command = command;
        }

        /** On the worker thread. */
        @Override
        public void run() {
            runner = Thread.currentThread();
            if (!STATE.compareAndSet(this, NEW, RUNNING)) {
                return; // taken back
            }
            try {
                command.run();
            } catch (Throwable failure) {
                // As in ThreadPoolExecutor: nobody else would see it (submit()'s FutureTask never throws),
                // not even a fatal error, which only fails the execution of RUN that nobody reads.
                runner.getUncaughtExceptionHandler().uncaughtException(runner, failure);
                if (failure instanceof VirtualMachineError fatal) {
                    throw fatal; // ends the worker thread, which is replaced, as for a moroutine
                }
            } finally {
                if (!STATE.compareAndSet(this, RUNNING, DONE)) {
                    while ((int) STATE.getVolatile(this) == INTERRUPTING) {
                        Thread.onSpinWait();
                    }
                    Thread.interrupted();
                }
                forget(this);
            }
        }

        /** Whether {@code thread} is running this task now; only {@code thread} itself can rely on a {@code true}. */
        boolean isRunningOn(Thread thread) {
            int now = (int) STATE.getVolatile(this);
            return runner == thread && (now == RUNNING || now == INTERRUPTING);
        }

        /** Claims a task that has not started, so that its worker skips it. */
        boolean takeBack() {
            return STATE.compareAndSet(this, NEW, TAKEN_BACK);
        }

        void interrupt() {
            if (STATE.compareAndSet(this, RUNNING, INTERRUPTING)) {
                try {
                    runner.interrupt();
                } finally {
                    STATE.setVolatile(this, DONE);
                }
            }
        }

        /**
         * Its execution completed. If the task started, {@link #run} counts it out when it returns;
         * if not, the pool stopped first and it never will start.
         */
        @Override
        public void accept(Object ignored, Throwable failure) {
            if (takeBack()) {
                // A future of submit() or invokeAll() that will never run must not keep its waiters forever.
                if (command instanceof Future<?> future) {
                    future.cancel(false);
                }
                forget(this);
            }
        }

        @Override
        public String toString() {
            return command.toString();
        }
    }
}
