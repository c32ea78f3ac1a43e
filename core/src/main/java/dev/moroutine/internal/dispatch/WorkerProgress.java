package dev.moroutine.internal.dispatch;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What a worker thread writes on every task, on cache lines of its own: producers read the
 * worker's lifecycle and parked flag on every dispatch, and sharing a line with these per-task
 * writes would make each of those reads a miss. The padding fields sit in the superclass and the
 * subclass because the JVM lays a class's fields out after its superclass's, in any order within
 * a class.
 */
final class WorkerProgress extends WorkerProgressFields {
    long p11;
    long p12;
    long p13;
    long p14;
    long p15;
    long p16;
    long p17;
    long p18;
}

/** The padding before the fields. */
abstract class WorkerProgressPad {
    long p01;
    long p02;
    long p03;
    long p04;
    long p05;
    long p06;
    long p07;
    long p08;
}

/** The fields: see {@link WorkerProgress}. */
abstract class WorkerProgressFields extends WorkerProgressPad {
    private static final VarHandle COMPLETED;
    private static final VarHandle CURRENT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            COMPLETED = lookup.findVarHandle(WorkerProgressFields.class, "completed", long.class);
            CURRENT = lookup.findVarHandle(WorkerProgressFields.class, "current", Execution.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The execution running now; written by the worker thread ({@link #publishCurrent}), read by a force-stop. */
    volatile Execution<?> current;
    /** Executions taken off the queue and finished; written only by the worker thread, read by balancers. */
    private volatile long completed;
    /** The worker thread's own copy of {@code completed}. */
    long taken;

    /**
     * Publishes the execution the worker thread is about to run, with a release store: the full
     * fence that orders it before the thread's read of its lifecycle is the one of {@link
     * Execution#begin}, which the thread calls next (see {@link ThreadWorker}, "Lifecycle").
     */
    final void publishCurrent(Execution<?> execution) {
        CURRENT.setRelease(this, execution);
    }

    /**
     * Forgets the finished execution. A release store is enough: only setting {@code current}
     * takes part in the hand-shake with a force-stop (see {@link #publishCurrent}).
     */
    final void clearCurrent() {
        CURRENT.setRelease(this, (Execution<?>) null);
    }

    /** Counts one execution off the queue; the worker thread's only write to {@code completed}. */
    final void markTaken() {
        COMPLETED.setRelease(this, ++taken);
    }

    final long completed() {
        return (long) COMPLETED.getAcquire(this);
    }
}
