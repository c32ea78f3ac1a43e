package dev.moroutine.internal.dispatch;

import dev.moroutine.WorkerHandle;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

/**
 * A pool as a test of thread workers builds it: the workers it lists, which tasks it shares, and its
 * spin gate (null for none).
 *
 * @param workers the workers, as the test adds them
 * @param sharesAnyWork whether any task may run at a sibling of the worker it was sent to
 * @param spinGate the gate for its idle workers, or null
 * @param sharing which tasks may
 */
record TestGroup(List<WorkerHandle> workers, boolean sharesAnyWork, SpinGate spinGate, Predicate<Invocation> sharing)
        implements WorkerGroup {

    /** A pool that shares every task, or none. */
    TestGroup(List<WorkerHandle> workers, boolean sharesAnyWork, SpinGate spinGate) {
        this(workers, sharesAnyWork, spinGate, invocation -> sharesAnyWork);
    }

    @Override
    public int highWaterMark() {
        return 16;
    }

    @Override
    public Duration taskTimeout() {
        return null;
    }

    @Override
    public boolean sharesWork(Invocation invocation) {
        return sharing.test(invocation);
    }

    /**
     * Makes the workers of a new group, each named {@code prefix} and its index, and starts them.
     *
     * @param prefix their threads' names, before the index
     * @param count how many
     * @param sharesAnyWork as the group's
     * @param spinGate as the group's
     * @return the started workers
     */
    static List<ThreadWorker> startWorkers(String prefix, int count, boolean sharesAnyWork, SpinGate spinGate) {
        List<WorkerHandle> members = new ArrayList<>();
        TestGroup group = new TestGroup(members, sharesAnyWork, spinGate);
        List<ThreadWorker> workers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ThreadWorker worker = new ThreadWorker(prefix + i, i, group);
            workers.add(worker);
            members.add(worker);
        }
        workers.forEach(ThreadWorker::start);
        return workers;
    }

    /**
     * Makes the workers of this group (it lists them as they are made), the one at {@code hooked}
     * with {@code queue} in place of its own, set by reflection; the test starts them: its way to
     * hold a thread at a chosen point of the hand-off.
     *
     * @param prefix their threads' names, before the index
     * @param count how many
     * @param hooked the index of the worker given {@code queue}
     * @param queue its queue
     * @return the workers, not started
     * @throws ReflectiveOperationException if the field cannot be set
     */
    List<ThreadWorker> makeWorkers(String prefix, int count, int hooked, MpscUnboundedAtomicArrayQueue<Execution<?>> queue)
            throws ReflectiveOperationException {
        List<ThreadWorker> made = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            made.add(new ThreadWorker(prefix + i, i, this));
        }
        replaceQueue(made.get(hooked), queue);
        workers.addAll(made);
        return made;
    }

    /**
     * Gives a worker not yet started {@code queue} in place of its own, by reflection.
     *
     * @param worker the worker
     * @param queue its new queue
     * @throws ReflectiveOperationException if the field cannot be set
     */
    static void replaceQueue(ThreadWorker worker, MpscUnboundedAtomicArrayQueue<Execution<?>> queue)
            throws ReflectiveOperationException {
        Field field = ThreadWorker.class.getDeclaredField("queue");
        field.setAccessible(true);
        field.set(worker, queue);
    }
}
