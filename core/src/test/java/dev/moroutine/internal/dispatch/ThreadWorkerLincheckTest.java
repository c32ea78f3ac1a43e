package dev.moroutine.internal.dispatch;

import static org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt.forClasses;

import dev.moroutine.testing.NoLeakedWorkers;
import dev.moroutine.testing.ShapedScenarios;
import dev.moroutine.testing.Stress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import kotlin.jvm.functions.Function1;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.CTestStructure;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionGenerator;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.CTestConfiguration;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.RandomProvider;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ThreadWorker}'s dispatch racing its graceful and forced stops, checked by Lincheck with
 * both strategies, in two parts.
 *
 * <p>What a dispatch returns (queued, or refused with a {@link RejectedExecutionException}) must
 * be linearizable against a model that is only "stopped or not": a dispatch is queued exactly
 * when it comes before every {@link ThreadWorker#drain drain} and {@link ThreadWorker#forceStop
 * forceStop}.
 *
 * <p>What then becomes of each execution is checked after the run, by the {@link Validate}
 * function, once the worker has stopped: a refused execution never runs and is left for its
 * caller to fail; a queued one is complete, has run at most once, and ran in the order its thread
 * dispatched it; unless the scenario forced a stop, every queued one ran and completed with its own
 * result (a drain never cancels what it admitted); with a forced stop, each either ran or was
 * cancelled. The worker ends with no active execution, and its thread ends (the
 * {@link NoLeakedWorkers} check after every test).
 *
 * <p>The worker's thread must end within each run (Lincheck's model checker waits for the threads
 * a run starts, but abandons one that only spins once the test's own threads are done), so the
 * scenarios are {@link Scenarios}: the worker's thread is started first, the other threads
 * dispatch, and the last one drains, forces a stop, or both, and then waits for the worker to
 * stop, as a closing pool does. The model checker answers every {@code System.nanoTime()} with the
 * same value, so there the worker's time-bounded idle spin never ends in a park: the park and the
 * wake that ends it are exercised by the stress run only. Not covered: executions that block or
 * take long (a forced stop's interrupt of a running task, and the cancel at dispatch that fails a
 * task at once while the thread is stuck: {@code CloseTest}), a thread that dies
 * ({@code WorkerDeathTest}), dedicated workers' retirement, and endpoints that refuse a dispatch.
 */
@Timeout(120)
public class ThreadWorkerLincheckTest {

    private static final WorkerGroup POOL = new TestGroup(List.of(), false, null);

    /** A task that counts its runs and says when it ran, and what its dispatch did. */
    static final class Counted extends Invocation {
        private final int id;
        private final List<Integer> runs;
        final AtomicInteger runCount = new AtomicInteger();
        final Execution<Object> execution = new Execution<>(this, null);
        boolean queued;

        Counted(int id, List<Integer> runs) {
            super(new Object[0]);
            this.id = id;
            this.runs = runs;
        }

        @Override
        public String id() {
            return "test#counted";
        }

        @Override
        protected Object invoke(Object[] resolved) {
            runCount.incrementAndGet();
            runs.add(id);
            return id;
        }

        @Override
        public String toString() {
            return "task " + id;
        }
    }

    /** A pool worker, the executions dispatched to it, and whether a stop was forced. */
    public static class WorkerOps {
        private final ThreadWorker worker = new ThreadWorker("test-pool-lincheck-worker", 0, POOL);
        /** By id; each slot written by the thread that dispatched it, read after every thread is done. */
        private final Counted[] dispatched = new Counted[Scenarios.IDS_PER_THREAD * Scenarios.IDS_PER_THREAD];
        /** The ids in the order they ran; written by the worker's thread only, read once it has stopped. */
        private final List<Integer> runs = new ArrayList<>();
        private volatile boolean forced;

        /** Starts the worker's thread; the first operation of every scenario. */
        @Operation
        public void start() {
            worker.start();
        }

        @Operation
        public String dispatch(int id) {
            Counted task = new Counted(id, runs);
            dispatched[id] = task;
            try {
                worker.dispatch(task.execution);
                task.queued = true;
                return "queued";
            } catch (RejectedExecutionException refused) {
                return "refused";
            }
        }

        @Operation
        public void drain() {
            worker.drain("drained by the test");
        }

        @Operation
        public void forceStop() {
            forced = true;
            worker.forceStop("stopped by the test");
        }

        /** Waits for the stopped worker to end, as a closing pool does; the last operation of every scenario. */
        @Operation
        public void awaitStopped() throws InterruptedException {
            check(worker.awaitStopped(10, TimeUnit.SECONDS), "the worker stops within 10 s");
        }

        @Validate
        public void everyQueuedExecutionCompletesOnce() {
            for (Counted task : dispatched) {
                if (task == null) {
                    continue;
                }
                Execution<Object> execution = task.execution;
                int ran = task.runCount.get();
                if (!task.queued) {
                    check(ran == 0 && !execution.isDone(), task + " was refused, yet ran " + ran + " times or completed");
                    continue;
                }
                check(execution.isDone(), task + " was queued but never completed");
                check(ran <= 1, task + " ran " + ran + " times");
                boolean ranToItsResult = ran == 1 && !execution.isCompletedExceptionally()
                        && Integer.valueOf(task.id).equals(execution.getNow(null));
                if (forced) {
                    check(ranToItsResult || execution.isCancelled(), task + " neither ran nor was cancelled: " + execution);
                } else {
                    check(ranToItsResult, task + " was queued before a drain, but did not run to its result: ran " + ran
                            + " times, " + execution);
                }
            }
            check(worker.activeCount() == 0, "the stopped worker counts " + worker.activeCount() + " active executions");
            Map<Integer, Integer> lastRunBy = new HashMap<>();
            for (int id : runs) {
                int before = lastRunBy.getOrDefault(id / Scenarios.IDS_PER_THREAD, 0);
                check(id > before, "task " + id + " ran after task " + before + ", which its thread dispatched after it");
                lastRunBy.put(id / Scenarios.IDS_PER_THREAD, id);
            }
        }

        private static void check(boolean holds, String otherwise) {
            if (!holds) {
                throw new AssertionError(otherwise);
            }
        }
    }

    /** The model: a dispatch is queued until the first drain or forced stop. */
    public static class WorkerModel {
        private boolean stopped;

        public void start() {
            // the model has no thread
        }

        public String dispatch(int id) {
            return stopped ? "refused" : "queued";
        }

        public void drain() {
            stopped = true;
        }

        public void forceStop() {
            stopped = true;
        }

        public void awaitStopped() {
            // the model has no thread
        }
    }

    /**
     * The worker's thread starts first; then all but one of the configured threads dispatch one
     * to {@code actorsPerThread} executions each (thread {@code t}'s ids count up from
     * {@code t * IDS_PER_THREAD + 1}), and the last one drains, forces a stop, or drains and then
     * forces one, and waits for the worker to stop, so that its thread ends within the run.
     */
    public static class Scenarios extends ExecutionGenerator {
        static final int IDS_PER_THREAD = 10;

        private final Random random;
        private final Actor validation;

        public Scenarios(CTestConfiguration configuration, CTestStructure structure, RandomProvider randomProvider) {
            super(configuration, structure);
            this.random = randomProvider.createRandom();
            this.validation = structure.validationFunction;
        }

        @Override
        public ExecutionScenario nextExecution() {
            List<List<Actor>> threads = new ArrayList<>();
            for (int t = 0; t < testConfiguration.getThreads() - 1; t++) {
                List<Actor> dispatcher = new ArrayList<>();
                int count = 1 + random.nextInt(testConfiguration.getActorsPerThread());
                for (int i = 1; i <= count; i++) {
                    dispatcher.add(op("dispatch", t * IDS_PER_THREAD + i));
                }
                threads.add(dispatcher);
            }
            threads.add(switch (random.nextInt(3)) {
                case 0 -> List.of(op("drain"), op("awaitStopped"));
                case 1 -> List.of(op("forceStop"), op("awaitStopped"));
                default -> List.of(op("drain"), op("forceStop"), op("awaitStopped"));
            });
            return new ExecutionScenario(List.of(op("start")), threads, List.of(), validation);
        }

        private static Actor op(String name, Object... arguments) {
            return ShapedScenarios.actor(WorkerOps.class, name, arguments);
        }
    }

    @Test
    void dispatchRacingDrainAndForceStopUnderStress() {
        ShapedScenarios.stress(Scenarios.class, WorkerModel.class)
                .threads(3)
                .actorsPerThread(3)
                .iterations(Stress.scaled(10))
                .invocationsPerIteration(100)
                .check(WorkerOps.class);
    }

    @Test
    void dispatchRacingDrainAndForceStopUnderModelChecking() {
        ShapedScenarios.modelChecking(Scenarios.class, WorkerModel.class)
                // Confined to the worker's thread: nothing to interleave, and clearing its map is a long loop
                // that the model checker would take for a spin.
                .addGuarantee(forClasses(WorkerContext.class.getName()).allMethods().ignore())
                // JCTools' queues are linearizable (checked by their own tests): one step each, so that the
                // interleavings go to the worker's own protocol.
                .addGuarantee(forClasses((Function1<String, Boolean>) name -> name.startsWith("org.jctools."))
                        .allMethods().treatAsAtomic())
                .threads(2)
                .actorsPerThread(2)
                .iterations(Stress.scaled(2))
                .invocationsPerIteration(30)
                .check(WorkerOps.class);
    }
}
