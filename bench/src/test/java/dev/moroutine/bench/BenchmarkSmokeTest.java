package dev.moroutine.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Runs every benchmark body once, directly, for every value of its {@code @Param}s (read from the
 * annotations, so a new system is covered as soon as it is added): setup (a worker JVM's warm-up cut
 * to one operation), one invocation, teardown.
 * It keeps the benchmarks compiling and working under {@code mvn verify} without running JMH.
 */
@Timeout(60)
class BenchmarkSmokeTest {

    private static final Blackhole BLACKHOLE = new Blackhole(
            "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");

    @BeforeAll
    static void warmUpOnce() {
        System.setProperty(ProcessPeers.WARM_UP_PROPERTY, "1");
    }

    @AfterAll
    static void evaporate() {
        System.clearProperty(ProcessPeers.WARM_UP_PROPERTY);
        BLACKHOLE.evaporate("Yes, I am Stephen Hawking, and know a thing or two about black holes.");
    }

    static Stream<String> pingPongSystems() {
        return params(PingPongBenchmark.class, "system");
    }

    static Stream<Arguments> pipelinedCases() {
        return params(PipelinedBenchmark.class, "system").flatMap(system -> params(PipelinedBenchmark.class, "inFlight")
                .map(inFlight -> Arguments.of(system, Integer.parseInt(inFlight))));
    }

    static Stream<String> parallelSystems() {
        return params(ParallelBenchmark.class, "system");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pingPongSystems")
    void pingPong(String system) throws Exception {
        PingPongBenchmark benchmark = new PingPongBenchmark();
        benchmark.system = system;
        benchmark.setup();
        try {
            assertEquals(1, benchmark.pingPong());
        } finally {
            benchmark.tearDown();
        }
    }

    @ParameterizedTest(name = "{0}, {1} in flight")
    @MethodSource("pipelinedCases")
    void pipelined(String system, int inFlight) throws Exception {
        PipelinedBenchmark benchmark = new PipelinedBenchmark();
        benchmark.system = system;
        benchmark.inFlight = inFlight;
        benchmark.setup(BLACKHOLE);
        try {
            benchmark.pipelined(BLACKHOLE);
            benchmark.pipelined(BLACKHOLE); // the second pass waits on the ring the first one filled
            benchmark.drain();
        } finally {
            benchmark.tearDown();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("parallelSystems")
    void parallel(String system) throws Exception {
        ParallelBenchmark benchmark = new ParallelBenchmark();
        benchmark.system = system;
        benchmark.setup(BLACKHOLE);
        try {
            benchmark.parallel(BLACKHOLE);
        } finally {
            benchmark.tearDown();
        }
    }

    static Stream<Arguments> streamingCases() {
        return params(StreamingBenchmark.class, "direction").flatMap(direction -> params(StreamingBenchmark.class, "system")
                .map(system -> Arguments.of(direction, system)));
    }

    static Stream<Arguments> fanOutCases() {
        return params(FanOutBenchmark.class, "system").flatMap(system -> params(FanOutBenchmark.class, "consumers")
                .map(consumers -> Arguments.of(system, Integer.parseInt(consumers))));
    }

    static Stream<Arguments> batchCases() {
        return params(BatchBenchmark.class, "system").flatMap(system -> params(BatchBenchmark.class, "way")
                .map(way -> Arguments.of(system, way)));
    }

    static Stream<Arguments> cpuBoundCases() {
        return params(CpuBoundBenchmark.class, "system").flatMap(system -> params(CpuBoundBenchmark.class, "batch")
                .map(batch -> Arguments.of(system, batch)));
    }

    static Stream<String> sharedMemoryMethods() {
        return Arrays.stream(SharedMemoryBenchmark.class.getMethods())
                .filter(m -> m.isAnnotationPresent(Benchmark.class))
                .map(Method::getName)
                .sorted();
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("streamingCases")
    void streaming(String direction, String system) throws Exception {
        StreamingBenchmark benchmark = new StreamingBenchmark();
        benchmark.direction = StreamingBenchmark.Direction.valueOf(direction);
        benchmark.system = system;
        benchmark.setup();
        try {
            assertEquals(benchmark.expected(), benchmark.streaming());
            assertEquals(benchmark.expected(), benchmark.streaming()); // the second stream on the same worker
        } finally {
            benchmark.tearDown();
        }
    }

    @ParameterizedTest(name = "{0}, {1} consumers")
    @MethodSource("fanOutCases")
    void fanOut(String system, int consumers) throws Exception {
        FanOutBenchmark benchmark = new FanOutBenchmark();
        benchmark.system = system;
        benchmark.consumers = consumers;
        benchmark.setup();
        try {
            benchmark.startShares();
            assertEquals(FanOutBenchmark.ITEMS, benchmark.fanOut());
            assertEquals(FanOutBenchmark.ITEMS, benchmark.fanOut());
            assertTrue(benchmark.minShare() >= 0 && benchmark.minShare() <= 100.0 / consumers, "min share "
                    + benchmark.minShare());
            benchmark.recordShares();
        } finally {
            benchmark.tearDown();
        }
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("batchCases")
    void batch(String system, String way) throws Exception {
        BatchBenchmark benchmark = new BatchBenchmark();
        benchmark.system = system;
        benchmark.way = way;
        benchmark.setup();
        try {
            assertEquals(Items.expectedSum(BatchBenchmark.ITEMS), benchmark.items());
        } finally {
            benchmark.tearDown();
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cpuBoundCases")
    void cpuBound(String system, String batch) throws Exception {
        CpuBoundBenchmark benchmark = new CpuBoundBenchmark();
        benchmark.system = system;
        benchmark.batch = batch;
        benchmark.setup();
        try {
            assertEquals(CpuBoundBenchmark.numbers(batch).length, benchmark.primes());
        } finally {
            benchmark.tearDown();
        }
    }

    @Test
    void warmsUpOnlyTheSystemsOfOtherProcesses() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        ProcessPeers.warmUp(Dispatcher.FORK_JOIN_POOL, runs::incrementAndGet);
        assertEquals(0, runs.get(), "a thread pool is warmed up by JMH's own warm-up");
        for (String system : List.of(ProcessPeers.ISOLATED, ProcessPeers.ISOLATED_1024, ProcessPeers.PIPE)) {
            runs.set(0);
            ProcessPeers.warmUp(system, runs::incrementAndGet);
            assertTrue(runs.get() >= 1, system + " ran its warm-up " + runs.get() + " times");
        }
    }

    @Test
    void mixesTestsOfEveryCostInOneOrderEachTime() {
        long[] mixed = CpuBoundBenchmark.numbers(CpuBoundBenchmark.MIXED);
        assertEquals(CpuBoundBenchmark.MIXED_TASKS, mixed.length);
        assertArrayEquals(mixed, CpuBoundBenchmark.numbers(CpuBoundBenchmark.MIXED));
        assertEquals(Set.of(999_983L, 9_999_991L, 99_999_989L, CpuBoundBenchmark.PRIME),
                Arrays.stream(mixed).boxed().collect(Collectors.toSet()));
        assertTrue(Arrays.stream(mixed).allMatch(CpuBoundBenchmark::isPrime));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CpuBoundBenchmark.numbers("odd"));
        assertEquals("unknown batch \"odd\": give even or mixed", e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sharedMemoryMethods")
    void sharedMemory(String method) throws Exception {
        SharedMemoryBenchmark benchmark = new SharedMemoryBenchmark();
        SharedMemoryBenchmark.class.getMethod(method).invoke(benchmark);
    }

    /** The values of a {@code @Param}: those it lists, or (as JMH does) every constant of an enum that lists none. */
    private static Stream<String> params(Class<?> benchmark, String field) {
        try {
            Field f = benchmark.getField(field);
            Param param = f.getAnnotation(Param.class);
            assertNotNull(param, benchmark.getSimpleName() + "." + field + " has no @Param");
            if (f.getType().isEnum() && Arrays.equals(param.value(), new String[] {Param.BLANK_ARGS})) {
                return Arrays.stream(f.getType().getEnumConstants()).map(c -> ((Enum<?>) c).name());
            }
            return Arrays.stream(param.value());
        } catch (NoSuchFieldException e) {
            throw new AssertionError(benchmark.getSimpleName() + " has no public field " + field, e);
        }
    }
}
