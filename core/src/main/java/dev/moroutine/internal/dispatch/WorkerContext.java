package dev.moroutine.internal.dispatch;

import dev.moroutine.Signal;
import dev.moroutine.TaskFailedException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * A worker thread's private state: the values of the task-args it has resolved. Confined to that
 * thread, so it needs no synchronisation; a JDBC connection opened as a task-arg never leaves it.
 */
final class WorkerContext implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(WorkerContext.class.getName());

    private final String workerName;
    private final Map<Invocation, Object> values = new IdentityHashMap<>();
    private final ArrayDeque<AutoCloseable> closeables = new ArrayDeque<>();

    WorkerContext(String workerName) {
        this.workerName = workerName;
    }

    /**
     * Runs an invocation's function on this worker: task-args are replaced by their cached values
     * (run once per worker), endpoints by what their bindings open for this run only (closed when
     * it returns), and, given the run's {@code stop} signal, {@link Signal} arguments by a
     * {@link RunSignal} that also fires with it.
     *
     * @param bindings the execution's endpoint bindings by position, or null to bind them here (a task-arg's)
     */
    Object invoke(Invocation invocation, Endpoint.Binding[] bindings, Worker worker, Signal stop) throws Exception {
        Object[] args = invocation.args();
        Object[] resolved = args;
        Endpoint.Binding[] opened = bindings;
        int openedCount = 0;
        try {
            for (int i = 0; i < args.length; i++) {
                Object arg = args[i];
                if (arg instanceof TaskArg taskArg) {
                    if (resolved == args) {
                        resolved = args.clone();
                    }
                    resolved[i] = valueOf(taskArg.task(), invocation, worker);
                } else if (arg instanceof StreamArg) {
                    if (opened == null) {
                        opened = Execution.bindAll(invocation, null);
                        // A task-arg is never dispatched, but its streams may refuse this worker all the same.
                        Execution.sentTo(opened, worker);
                    }
                    if (resolved == args) {
                        resolved = args.clone();
                    }
                    resolved[i] = opened[i].open(worker);
                    openedCount = i + 1;
                } else if (stop != null && arg instanceof Signal given) {
                    if (resolved == args) {
                        resolved = args.clone();
                    }
                    resolved[i] = new RunSignal(given, stop);
                }
            }
            if (opened != null && opened[args.length] != null) { // a streaming function's output
                resolved = Arrays.copyOf(resolved, args.length + 1);
                resolved[args.length] = opened[args.length].open(worker);
            }
            return invocation.invoke(resolved);
        } finally {
            if (opened != null) {
                for (int i = 0; i < openedCount; i++) {
                    if (opened[i] != null) {
                        opened[i].closeAfterRun();
                    }
                }
                if (bindings == null) { // bound here, for a task-arg: nothing else completes them
                    for (Endpoint.Binding binding : opened) {
                        if (binding != null) {
                            binding.completed(null);
                        }
                    }
                }
            }
        }
    }

    private Object valueOf(Invocation taskArg, Invocation outer, Worker worker) throws Exception {
        Object value = values.get(taskArg);
        if (value != null || values.containsKey(taskArg)) {
            return value;
        }
        try {
            value = invoke(taskArg, null, worker, null);
        } catch (VirtualMachineError fatal) {
            throw fatal;
        } catch (Throwable e) {
            // Not cached: the next call that needs this task-arg tries again.
            throw new TaskFailedException("task-arg " + taskArg + " failed on " + workerName + ", so " + outer
                    + " did not run: " + e, e);
        }
        values.put(taskArg, value);
        if (value instanceof AutoCloseable closeable) {
            closeables.push(closeable);
        }
        return value;
    }

    /** Closes the cached {@link AutoCloseable} values, newest first, on the worker's own thread. */
    @Override
    public void close() {
        values.clear();
        while (!closeables.isEmpty()) {
            AutoCloseable closeable = closeables.pop();
            try {
                closeable.close();
            } catch (Throwable e) { // nothing may stop the worker from finishing its shutdown
                LOG.log(System.Logger.Level.WARNING, "closing a task-arg value on " + workerName + " failed", e);
            }
        }
    }
}
