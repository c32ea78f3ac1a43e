package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Pool;
import dev.moroutine.TaskFailedException;
import dev.moroutine.shared.Shared;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/** What crosses to a worker JVM, and what is refused at the call, with a message that says what to do. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CrossingTest {

    private static Pool pool;
    private static String worker;

    @BeforeAll
    static void start() {
        pool = Isolated.workers(1);
        worker = pool.workers().get(0).name();
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @AfterEach
    void thePoolGoesOn() {
        assertEquals(0, pool.workers().get(0).activeCount(), "a refused task is not counted");
        assertEquals(9, pool.run(Jobs.square.call(3)));
    }

    private static <T extends Throwable> String refused(Class<T> type, Executable call) {
        return assertThrows(type, call).getMessage();
    }

    @Test
    void argumentsAndAnswersOfEverySizeCrossExactlyInAnyOrderOfSizes() throws Exception {
        // In flight together, so that each side decodes many in a row, a large one between small ones.
        Random random = new Random(42);
        List<String> sent = new ArrayList<>();
        List<Future<String>> answers = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String text = i + ":" + "ab".repeat(random.nextInt(5) == 0 ? random.nextInt(60_000) : random.nextInt(30));
            sent.add(new StringBuilder(text).reverse().toString());
            answers.add(pool.submit(Jobs.reverse.call(text)));
        }
        for (int i = 0; i < answers.size(); i++) {
            assertEquals(sent.get(i), answers.get(i).get(60, TimeUnit.SECONDS), "task " + i);
        }
    }

    @Test
    void anUnregisteredArgumentFailsAtTheCallNamingTheMoroutineThePositionAndTheClass() {
        String message = refused(IllegalArgumentException.class, () -> pool.submit(Jobs.describe.call(new Jobs.Unregistered("x"))));
        assertEquals("argument 1 of task dev.moroutine.isolated.Jobs#describe cannot cross to isolated worker " + worker
                + ": it is a dev.moroutine.isolated.Jobs$Unregistered, and class dev.moroutine.isolated.Jobs$Unregistered is not"
                + " registered. Register every class that crosses (besides strings, boxed primitives, arrays and the JDK's"
                + " collections and time types) on the pool: IsolatedOptions.defaults().register("
                + "dev.moroutine.isolated.Jobs.Unregistered.class)", message);
    }

    @Test
    void anUnregisteredClassInsideAnArgumentIsTheOneNamed() {
        String message = refused(IllegalArgumentException.class, () -> pool.run(Jobs.describe.call(List.of(new Jobs.Unregistered("x")))));
        assertTrue(message.startsWith("argument 1 of task dev.moroutine.isolated.Jobs#describe cannot cross to isolated worker "
                + worker + ": it is a java.util.ImmutableCollections$List12, and class dev.moroutine.isolated.Jobs$Unregistered"
                + " is not registered."), message);
    }

    @Test
    void anArgumentOfATaskArgIsNamedWithTheTaskItFeeds() {
        String message = refused(IllegalArgumentException.class,
                () -> pool.run(Jobs.describe.call(Jobs.describe.call(new Jobs.Unregistered("x")))));
        assertTrue(message.startsWith("argument 1 of task-arg task dev.moroutine.isolated.Jobs#describe (argument 1 of task"
                + " dev.moroutine.isolated.Jobs#describe) cannot cross"), message);
    }

    @Test
    void anUnregisteredResultFailsTheTaskInTheWorker() {
        TaskFailedException failed = assertThrows(TaskFailedException.class, () -> pool.run(Jobs.unregisteredResult.call()));
        IllegalArgumentException cause = assertInstanceOf(IllegalArgumentException.class, failed.getCause());
        assertTrue(cause.getMessage().startsWith("the result of task dev.moroutine.isolated.Jobs#unregisteredResult cannot"
                + " cross back from isolated worker " + worker + ": it is a dev.moroutine.isolated.Jobs$Unregistered, and class"
                + " dev.moroutine.isolated.Jobs$Unregistered is not registered."), cause.getMessage());
    }

    @Test
    void anExceptionThatCannotBeMadeAgainPrintsAsTheOriginal() {
        TaskFailedException failed = assertThrows(TaskFailedException.class, () -> pool.run(Jobs.odd.call()));
        assertEquals("dev.moroutine.isolated.Jobs$OddException: odd 42", failed.getCause().toString());
        assertEquals("odd 42", failed.getCause().getMessage());
    }

    @Test
    void aStreamTaskGivenToATaskArgIsNotSupportedYet() {
        String message = refused(UnsupportedOperationException.class,
                () -> pool.run(Jobs.describe.call(Jobs.count.call(Jobs.countUp.call(3)))));
        assertTrue(message.contains("is a stream ("), message);
        assertTrue(message.contains(") given to a task-arg, which cannot cross to isolated worker"), message);
    }

    @Test
    void aStreamingMoroutinesItemsComeBack() {
        assertEquals(List.of(0, 1, 2), pool.run(Jobs.countUp.call(3)).toList());
    }

    @Test
    void sharedMemoryFromAnArenaStaysInThisJvm() {
        String message = refused(IllegalArgumentException.class,
                () -> pool.run(Jobs.describe.call(Shared.shared(java.lang.foreign.Arena.ofAuto(), Shared.int32Atomic))));
        assertTrue(message.startsWith("argument 1 of task dev.moroutine.isolated.Jobs#describe is an Int32Atomic"), message);
        // A struct's class is generated per record type, a subclass: the message still names its interface.
        String struct = refused(IllegalArgumentException.class, () -> pool.run(Jobs.describe.call(
                Shared.shared(java.lang.foreign.Arena.ofAuto(), Shared.struct(Jobs.Point.class)))));
        assertTrue(struct.startsWith("argument 1 of task dev.moroutine.isolated.Jobs#describe is a Struct"), struct);
    }

    @Test
    void aSignalGivenToATaskArgIsNotSupportedYet() {
        String message = refused(UnsupportedOperationException.class,
                () -> pool.run(Jobs.describe.call(Jobs.abortedAtStart.call(pool.signal()))));
        assertEquals("argument 1 of task-arg task dev.moroutine.isolated.Jobs#abortedAtStart (argument 1 of task"
                + " dev.moroutine.isolated.Jobs#describe) is a Signal given to a task-arg, which cannot cross to isolated worker "
                + worker + " yet; run this task on a pool of threads (Moroutine.workers)", message);
    }
}
