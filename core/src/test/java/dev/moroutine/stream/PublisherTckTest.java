package dev.moroutine.stream;

import static dev.moroutine.stream.Streaming.*;
import static org.testng.Assert.assertEquals;

import java.util.List;
import java.util.concurrent.Flow;
import java.util.stream.LongStream;
import org.reactivestreams.tck.TestEnvironment;
import org.reactivestreams.tck.flow.FlowPublisherVerification;
import org.testng.ITestContext;
import org.testng.annotations.AfterClass;

/**
 * The Reactive Streams TCK (TestNG, run on the JUnit Platform by the TestNG engine) against
 * {@code task.publisher()}: the publisher of n items is a call of a streaming moroutine, so every
 * subscription is a run on the moroutine's dedicated worker, delivered by a virtual thread.
 *
 * <h2>Time budget</h2>
 * A signal must arrive within 1 s ({@code defaultTimeoutMillis}): a few milliseconds when the
 * machine is idle, and still met with two cores and a dozen busy threads. The no-signals window
 * ({@code expectNone}, {@code verifyNoAsyncErrors}) is as long: the TCK sleeps through it, so it
 * sets the run time (about 30 s), and a shorter one could only let a late, wrong signal go unseen.
 * Rule 3.13 waits 1 s before its one {@code System.gc()}, for the deliverer to end after cancel.
 * The poll interval is the signal timeout too, as the TCK's two-argument constructor makes it: in
 * TCK 1.0.4, {@code expectError} gives up after its first poll (a {@code =-} for {@code -=} in
 * {@code TestEnvironment.Receptacle.expectError}), so that poll is its real deadline.
 *
 * <h2>What is not verified, and why</h2>
 * Every required and optional rule runs; none is turned off here. {@code maxElementsFromPublisher}
 * keeps its default: the stream of n items is lazy, so even {@code Long.MAX_VALUE} items (the
 * TCK's unbounded publisher) cost nothing up front. {@code boundedDepthOfOnNextAndRequestRecursion}
 * keeps its 1: {@code request(n)} never calls {@code onNext}, the deliverer does. Stochastic tests
 * run. The optional rule 1.11 tests (several subscribers) pass because each of their streams
 * (5 items at most) fits the high-water mark: the runs share the dedicated worker one after
 * another, and each ends without waiting for its subscriber (see {@code StreamTask.publisher()}).
 *
 * <p>The TCK skips its seven {@code untested_*} rules itself (it cannot observe them from outside);
 * where this publisher stands on each:
 * <ul>
 *   <li>1.6, 1.7 and 1.8 (nothing after a terminal signal or after cancel): one call sends the
 *       terminal signal, once, and none after {@code cancel()}; {@code PublisherTest} checks the
 *       cancel case.
 *   <li>1.9 ({@code subscribe} should not throw): it throws only for a null subscriber, or rethrows
 *       what a broken {@code onSubscribe} threw, after cancelling (rule 2.13; {@code PublisherTest}).
 *   <li>1.10 (the same subscriber twice): not detected; each {@code subscribe} is a run of its own.
 *   <li>3.4 and 3.5 (no heavy work in {@code request} and {@code cancel}): {@code request} adds to
 *       the demand and unparks the deliverer; {@code cancel} closes the live stream, which flags the
 *       pipe and wakes its two ends, without waiting for either.
 * </ul>
 * An optional rule that fails is reported by the TCK as skipped, so {@link #onlyUntestedRulesAreSkipped}
 * turns such a skip into a failure.
 */
class PublisherTckTest extends FlowPublisherVerification<Long> {

    private static final long SIGNAL_TIMEOUT_MILLIS = 1_000;
    private static final long NO_SIGNALS_TIMEOUT_MILLIS = 1_000;
    private static final long GC_TIMEOUT_MILLIS = 1_000;

    static final StreamMo1<Long, Long> naturals = streaming(n -> LongStream.range(0, n).boxed());
    static final StreamMo0<Long> failing = streaming(() -> {
        throw new IllegalStateException("the producer failed before its first item");
    });

    PublisherTckTest() {
        super(new TestEnvironment(SIGNAL_TIMEOUT_MILLIS, NO_SIGNALS_TIMEOUT_MILLIS), GC_TIMEOUT_MILLIS);
    }

    @Override
    public Flow.Publisher<Long> createFlowPublisher(long elements) {
        return naturals.call(elements).publisher();
    }

    @Override
    public Flow.Publisher<Long> createFailedFlowPublisher() {
        return failing.call().publisher();
    }

    @AfterClass(alwaysRun = true)
    public void onlyUntestedRulesAreSkipped(ITestContext context) {
        List<String> skipped = context.getSkippedTests().getAllResults().stream()
                .map(result -> result.getMethod().getMethodName())
                .filter(name -> !name.startsWith("untested_"))
                .sorted()
                .toList();
        assertEquals(skipped, List.of(), "rules the TCK skipped because the publisher failed them (optional ones)"
                + " or could not run them");
    }
}
