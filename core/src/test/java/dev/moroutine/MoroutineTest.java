package dev.moroutine;

import static dev.moroutine.Moroutine.*;
import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MoroutineTest {

    static final Mo0<String> threadName = mo(() -> Thread.currentThread().getName());
    static final Mo1<Long, Boolean> isPrime = mo(n -> {
        if (n < 2) return false;
        for (long i = 2; i * i <= n; i++) {
            if (n % i == 0) {
                return false;
            }
        }
        return true;
    });
    static final Mo2<Integer, Integer, Integer> add = mo(Integer::sum);
    static final Mo3<String, String, String, String> join3 = mo((a, b, c) -> a + b + c);
    static final Mo4<Integer, Integer, Integer, Integer, Integer> sum4 = mo((a, b, c, d) -> a + b + c + d);
    static final Mo1<String, String> readFile = mo(path -> {
        throw new IOException("no such file: " + path);
    });
    static final Mo1<Integer, Integer> recurse = mo(MoroutineTest::depth);
    static final Mo1<int[], Integer> sumArray = mo(values -> Arrays.stream(values).sum());

    static final class Nested {
        static final Mo1<Integer, Integer> twice = mo(x -> 2 * x);
    }

    private static int depth(int n) {
        return depth(n + 1) + 1;
    }

    @Test
    void runsOnItsOwnDedicatedDaemonWorker() throws Exception {
        String first = threadName.call().join();
        String second = threadName.call().future().get();
        assertEquals("moroutine-dev.moroutine.MoroutineTest#threadName", first);
        assertEquals(first, second);
        Thread worker = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(first)).findFirst().orElseThrow();
        assertTrue(worker.isDaemon(), "dedicated workers must not keep the JVM alive");
        assertFalse(worker.isVirtual());
    }

    @Test
    void everyArityComputes() {
        assertTrue(isPrime.call(999_999_937L).join());
        assertFalse(isPrime.call(999_999_938L).join());
        assertEquals(7, add.call(3, 4).join());
        assertEquals("abc", join3.call("a", "b", "c").join());
        assertEquals(10, sum4.call(1, 2, 3, 4).join());
        assertEquals(6, sumArray.call(new int[] {1, 2, 3}).join());
        assertEquals(42, Nested.twice.call(21).join());
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 97, 7919, 1_000_000_007L})
    void matchesALocalComputation(long n) {
        boolean expected = n >= 2 && java.math.BigInteger.valueOf(n).isProbablePrime(50);
        assertEquals(expected, isPrime.call(n).join());
    }

    @Test
    void identityIsClassAndField() {
        assertEquals("dev.moroutine.MoroutineTest#isPrime", isPrime.id());
        assertEquals("dev.moroutine.MoroutineTest$Nested#twice", Nested.twice.id());
        assertEquals(1, isPrime.arity());
        assertEquals(4, sum4.arity());
    }

    @Test
    void aMoroutineOutsideAStaticFinalFieldFailsAtFirstUseNamingWhereItWasMade() {
        int line = new Throwable().getStackTrace()[0].getLineNumber() + 1;
        Mo1<Integer, Integer> local = mo(x -> x);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> local.call(1));
        assertTrue(e.getMessage().contains("MoroutineTest.java:" + line), e.getMessage());
        assertTrue(e.getMessage().contains("not stored in a static final field of dev.moroutine.MoroutineTest"), e.getMessage());
        assertThrows(IllegalStateException.class, local::id);
    }

    @Test
    void aCheckedExceptionReachesTheCallerWithBothStacks() {
        TaskFailedException e = assertThrows(TaskFailedException.class, () -> readFile.call("/nope").join());
        assertInstanceOf(IOException.class, e.getCause());
        assertEquals("no such file: /nope", e.getCause().getMessage());
        assertTrue(e.getMessage().contains("MoroutineTest#readFile"), e.getMessage());
        assertTrue(stackMentions(e, "aCheckedExceptionReachesTheCallerWithBothStacks"), "caller's frames");
        assertTrue(stackMentions(e.getCause(), "ThreadWorker"), "worker's frames");
    }

    @Test
    void theFutureFailsWithTheMoroutinesOwnException() {
        ExecutionException e = assertThrows(ExecutionException.class, () -> readFile.call("/x").future().get());
        assertInstanceOf(IOException.class, e.getCause());
        assertEquals(7, add.call(3, 4).join(), "the worker keeps working");
    }

    @Test
    void aStackOverflowReplacesTheDedicatedWorker() {
        WorkerDiedException e = assertThrows(WorkerDiedException.class, () -> {
            try {
                recurse.call(0).join();
            } catch (TaskFailedException failed) {
                throw failed.getCause();
            }
        });
        assertInstanceOf(StackOverflowError.class, e.getCause());
        assertTrue(e.getMessage().contains("a new thread replaced it"), e.getMessage());
    }

    @Test
    void isTaskAndArgsGiveTypedAccess() {
        Task<Integer> task = add.call(3, 4);
        assertTrue(isTask(add, task));
        assertFalse(isTask(sum4, task));
        Mo2.Args<Integer, Integer> args = add.args(task);
        assertEquals(3, args.first());
        assertEquals(4, args.second());
        IllegalArgumentException other = assertThrows(IllegalArgumentException.class, () -> sum4.args(task));
        assertTrue(other.getMessage().contains("is not a call of dev.moroutine.MoroutineTest#sum4"), other.getMessage());
        Task<Integer> withTaskArg = add.call(add.call(1, 2), 4);
        assertEquals(4, add.args(withTaskArg).second(), "value positions stay readable");
        IllegalArgumentException taskArg = assertThrows(IllegalArgumentException.class, () -> add.args(withTaskArg).first());
        assertTrue(taskArg.getMessage().contains("argument 1"), taskArg.getMessage());
        assertTrue(taskArg.getMessage().contains("exists only on a worker"), taskArg.getMessage());
    }

    @Test
    void aTaskRunsAgainEachTimeItIsJoined() {
        Task<Integer> roll = add.call(ThreadLocalRandom.current().nextInt(100), 1);
        assertEquals(roll.join(), roll.join());
    }

    @Test
    void badInputsSayWhatIsWrong() {
        NullPointerException body = assertThrows(NullPointerException.class, () -> mo((Mo1.Body<Integer, Integer>) null));
        assertEquals("body", body.getMessage());
        NullPointerException taskArg = assertThrows(NullPointerException.class, () -> add.call((Task<Integer>) null, 1));
        assertTrue(taskArg.getMessage().contains("task-arg 1 is null"), taskArg.getMessage());
        NullPointerException isTaskNull = assertThrows(NullPointerException.class, () -> isTask(null, add.call(1, 2)));
        assertEquals("moroutine", isTaskNull.getMessage());
    }

    /** Users cannot implement what the library would refuse at run time: the compiler refuses it. */
    @Test
    void thePublicTypesThatOnlyTheLibraryMakesAreSealed() {
        for (Class<?> type : List.of(Mo.class, Task.class, WorkerHandle.class, dev.moroutine.stream.StreamTask.class,
                dev.moroutine.stream.Channel.class, dev.moroutine.stream.Emitter.class, dev.moroutine.stream.LiveStream.class)) {
            assertTrue(type.isSealed(), type + " is sealed");
        }
    }

    private static boolean stackMentions(Throwable t, String text) {
        return Arrays.stream(t.getStackTrace()).anyMatch(f -> f.toString().contains(text));
    }
}
