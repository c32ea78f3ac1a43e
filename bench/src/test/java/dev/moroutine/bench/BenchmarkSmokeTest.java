package dev.moroutine.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Runs every benchmark body once, directly, for every value of its {@code @Param}s (read from the
 * annotations, so a new system is covered as soon as it is added): setup, one invocation, teardown.
 * It keeps the benchmarks compiling and working under {@code mvn verify} without running JMH.
 */
@Timeout(60)
class BenchmarkSmokeTest {

    private static final Blackhole BLACKHOLE = new Blackhole(
            "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");

    @AfterAll
    static void evaporate() {
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
        benchmark.setup();
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
        benchmark.setup();
        try {
            benchmark.parallel(BLACKHOLE);
        } finally {
            benchmark.tearDown();
        }
    }

    private static Stream<String> params(Class<?> benchmark, String field) {
        try {
            Param param = benchmark.getField(field).getAnnotation(Param.class);
            assertNotNull(param, benchmark.getSimpleName() + "." + field + " has no @Param");
            return Arrays.stream(param.value());
        } catch (NoSuchFieldException e) {
            throw new AssertionError(benchmark.getSimpleName() + " has no public field " + field, e);
        }
    }
}
