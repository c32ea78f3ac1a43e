package dev.moroutine.internal.stream;

import dev.moroutine.TaskFailedException;
import dev.moroutine.testing.ShapedScenarios;
import dev.moroutine.testing.Stress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CancellationException;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.CTestStructure;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionGenerator;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.CTestConfiguration;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.RandomProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Linearizability of {@link Pipe}: every concurrent run of emit, next, finish, fail and cancel
 * must give the results of some sequential order of the same calls on a bounded FIFO that ends
 * (finished, failed, stopped) or is closed by its consumer, checked by Lincheck with both strategies.
 *
 * <h2>Blocking</h2>
 * Lincheck has no model of a thread that blocks (JetBrains/lincheck#167, #437): an operation that
 * never returns is a hang, not a result. So the scenarios are not Lincheck's random ones but
 * {@link Scenarios}, which have the shape every real stream has: one producer thread that emits
 * and then ends the pipe (finish, or fail as a throwing moroutine does), one consumer thread that
 * takes until it sees the end, or closes early (and then finds nothing more), and sometimes a
 * third thread that stops the producer (a timeout or a forced stop fails the pipe) or closes the
 * stream. In such a run no call blocks forever, yet the producer can still
 * find the pipe full and the consumer find it empty, so both waits are exercised: the high-water
 * mark is 2 and the producer emits up to 4 items. The sequential model refuses, with an exception
 * that the pipe never throws, to emit into a full pipe or take from an empty open one, so a
 * blocking call is linearized at the moment it can go on.
 *
 * <p>The model checker answers every {@code System.nanoTime()} with the same value, so there a
 * wait spins until the other side acts and never parks: parking and waking are exercised by the
 * stress run only. Not covered: more than one producer thread (a pipe refuses it), one producer
 * feeding several pipes through one {@link Pipe.ProducerWait}, and interrupts.
 */
@Timeout(120)
public class PipeLincheckTest {

    static final int HIGH_WATER_MARK = 2;
    private static final int MAX_ITEMS = 4;

    /** The pipe, its results made comparable: items, or words for the ends and refusals. */
    public static class PipeOps {
        private final Pipe<Integer> pipe = new Pipe<>(HIGH_WATER_MARK, "the test pipe");

        @Operation
        public String emit(int item) {
            try {
                pipe.emit(item);
                return "ok";
            } catch (CancellationException refused) {
                return refused.getMessage().endsWith("closed it") ? "closed" : "ended";
            }
        }

        @Operation
        public Object next() {
            try {
                Object item = pipe.next();
                return item == ItemSource.END ? "end" : item;
            } catch (TaskFailedException failed) {
                return "failed: " + failed.getCause().getMessage();
            } catch (CancellationException stopped) {
                return "stopped: " + stopped.getMessage();
            }
        }

        @Operation
        public void finish() {
            pipe.finish();
        }

        @Operation
        public void fail(boolean stopped) {
            pipe.fail(stopped ? new CancellationException("stopped") : new IllegalStateException("boom"));
        }

        @Operation
        public void cancel() {
            pipe.cancel();
        }
    }

    /** Thrown by the model where the pipe would wait: no order that puts the call there matches. */
    static final class WouldBlock extends RuntimeException {
        private static final long serialVersionUID = 1L;

        WouldBlock() {
            super(null, null, false, false);
        }
    }

    /**
     * The sequential model: a FIFO of at most {@link #HIGH_WATER_MARK} items, how the producer
     * ended it, and whether the consumer closed (after which it takes nothing, not even a failure).
     */
    public static class PipeModel {
        private final ArrayDeque<Integer> items = new ArrayDeque<>();
        private String end; // null while the producer is at work; else what next() returns once the items are taken
        private boolean cancelled;

        public String emit(int item) {
            if (cancelled) {
                return "closed";
            }
            if (end != null) {
                return "ended";
            }
            if (items.size() >= HIGH_WATER_MARK) {
                throw new WouldBlock();
            }
            items.add(item);
            return "ok";
        }

        public Object next() {
            if (cancelled) {
                return "end";
            }
            if (!items.isEmpty()) {
                return items.poll();
            }
            if (end == null) {
                throw new WouldBlock();
            }
            return end;
        }

        public void finish() {
            endWith("end");
        }

        public void fail(boolean stopped) {
            endWith(stopped ? "stopped: stopped" : "failed: boom");
        }

        public void cancel() {
            cancelled = true;
        }

        private void endWith(String how) {
            if (end == null && !cancelled) {
                end = how;
            }
        }
    }

    /**
     * Scenarios shaped like real streams (see the class comment): the producer emits distinct
     * items and ends the pipe; the consumer takes one more time than there are items, unless it
     * closes first (then it takes once more, and finds the end); a third thread sometimes stops
     * the producer or closes the stream.
     */
    public static class Scenarios extends ExecutionGenerator {
        private final Random random;

        public Scenarios(CTestConfiguration configuration, CTestStructure structure, RandomProvider randomProvider) {
            super(configuration, structure);
            this.random = randomProvider.createRandom();
        }

        @Override
        public ExecutionScenario nextExecution() {
            int items = random.nextInt(MAX_ITEMS + 1);
            List<Actor> producer = new ArrayList<>();
            for (int i = 1; i <= items; i++) {
                producer.add(op("emit", i));
            }
            producer.add(switch (random.nextInt(3)) {
                case 0 -> op("fail", false); // the moroutine threw
                default -> op("finish");
            });
            List<Actor> consumer = new ArrayList<>();
            int closesAfter = random.nextInt(3) == 0 ? random.nextInt(items + 1) : -1;
            for (int i = 0; i <= items; i++) {
                if (i == closesAfter) {
                    consumer.add(op("cancel"));
                    consumer.add(op("next"));
                    break;
                }
                consumer.add(op("next"));
            }
            List<List<Actor>> threads = new ArrayList<>(List.of(producer, consumer));
            switch (random.nextInt(4)) {
                case 0 -> threads.add(List.of(op("fail", true))); // a forced stop
                case 1 -> threads.add(List.of(op("fail", false))); // a timeout
                case 2 -> threads.add(List.of(op("cancel"))); // the stream closed from another thread
                default -> { }
            }
            return new ExecutionScenario(List.of(), threads, List.of(), null);
        }

        private static Actor op(String name, Object... arguments) {
            return ShapedScenarios.actor(PipeOps.class, name, arguments);
        }
    }

    @Test
    void pipeIsLinearizableUnderStress() {
        ShapedScenarios.stress(Scenarios.class, PipeModel.class)
                .iterations(Stress.scaled(10))
                .invocationsPerIteration(100)
                .check(PipeOps.class);
    }

    @Test
    void pipeIsLinearizableUnderModelChecking() {
        ShapedScenarios.modelChecking(Scenarios.class, PipeModel.class)
                .iterations(Stress.scaled(4))
                .invocationsPerIteration(100)
                .check(PipeOps.class);
    }
}
