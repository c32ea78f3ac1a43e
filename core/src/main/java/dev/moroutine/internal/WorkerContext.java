package dev.moroutine.internal;

import dev.moroutine.Signal;
import dev.moroutine.TaskFailedException;
import dev.moroutine.stream.LiveStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A worker thread's private state: the values of the task-args it has resolved. Confined to that
 * thread, so it needs no synchronisation; a JDBC connection opened as a task-arg never leaves it.
 */
final class WorkerContext implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(WorkerContext.class.getName());

    private final String workerName;
    private final int highWaterMark;
    private final Map<Call<?>, Object> values = new IdentityHashMap<>();
    private final ArrayDeque<AutoCloseable> closeables = new ArrayDeque<>();

    WorkerContext(String workerName, int highWaterMark) {
        this.workerName = workerName;
        this.highWaterMark = highWaterMark;
    }

    /**
     * Runs a call's function on this worker: task-args are replaced by their cached values (run
     * once per worker), stream task-args and channels by live streams opened for this call only
     * (a channel's end was usually attached at dispatch: {@code channelEnds}) and closed when it
     * returns, and, given the run's {@code stop} signal, {@link Signal} arguments by a
     * {@link RunSignal} that also fires with it.
     */
    Object invoke(Call<?> call, Pipe<Object> pipe, LiveStream<?>[] channelEnds, Signal stop) throws Exception {
        Object[] args = call.args();
        Object[] resolved = args;
        List<LiveStream<?>> opened = null;
        try {
            for (int i = 0; i < args.length; i++) {
                if (args[i] instanceof TaskArg taskArg) {
                    if (resolved == args) {
                        resolved = args.clone();
                    }
                    Object source = taskArg.task();
                    if (source instanceof Call<?> task && !(source instanceof StreamCall<?>)) {
                        resolved[i] = valueOf(task, call);
                    } else {
                        LiveStream<?> live = source instanceof StreamCall<?> stream
                                ? stream.open(stream.defaultWorker(), highWaterMark)
                                : channelEnds != null && channelEnds[i] != null
                                        ? channelEnds[i]
                                        : ((ChannelImpl<?>) source).attach();
                        if (opened == null) {
                            opened = new ArrayList<>(2);
                        }
                        opened.add(live);
                        resolved[i] = live;
                    }
                } else if (stop != null && args[i] instanceof Signal given) {
                    if (resolved == args) {
                        resolved = args.clone();
                    }
                    resolved[i] = new RunSignal(given, stop);
                }
            }
            return call.definition().invoke(resolved, pipe);
        } finally {
            if (opened != null) {
                opened.forEach(LiveStream::close);
            }
        }
    }

    private Object valueOf(Call<?> taskArg, Call<?> outer) throws Exception {
        Object value = values.get(taskArg);
        if (value != null || values.containsKey(taskArg)) {
            return value;
        }
        try {
            value = invoke(taskArg, null, null, null);
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
