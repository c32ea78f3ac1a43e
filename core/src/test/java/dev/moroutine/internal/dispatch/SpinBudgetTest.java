package dev.moroutine.internal.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SpinBudgetTest {

    private static final boolean ONE_CPU = Runtime.getRuntime().availableProcessors() == 1;
    private static final int NANOS = 40_000;

    @Test
    void anAdaptiveBudgetShrinksWhenWaitsEndLate() {
        SpinBudget budget = new SpinBudget(NANOS);
        long first = budget.next();
        budget.ended(System.nanoTime() - 10 * NANOS, first, false); // parked
        assertEquals(ONE_CPU ? 0 : NANOS / 2, budget.next(), "halved after a wait that parked");
    }

    @Test
    void anAdaptiveBudgetGrowsWhenWaitsEndInTheirPureSpin() {
        SpinBudget budget = parkedOnce();
        long limit = budget.next();
        budget.ended(System.nanoTime() + TimeUnit.SECONDS.toNanos(1), limit, true); // no time at all, however loaded the machine
        assertEquals(ONE_CPU ? 0 : NANOS, budget.next(), "doubled after a wait that ended at once");
    }

    @Test
    void anAdaptiveBudgetStaysWhenAWaitEndsLateWithoutParking() {
        SpinBudget budget = parkedOnce();
        for (int i = 0; i < 10; i++) { // on a busy machine: each wait ends only once the spinner yielded
            long limit = budget.next();
            budget.ended(System.nanoTime() - limit, limit, true);
        }
        assertEquals(ONE_CPU ? 0 : NANOS / 2, budget.next(), "kept after waits that ended late, none in a park");
    }

    @Test
    void aProbeThatEndsWithoutParkingRestoresTheFullBudget() {
        SpinBudget budget = new SpinBudget(NANOS);
        for (int wait = 1; wait < 64; wait++) {
            budget.ended(System.nanoTime() - 10 * NANOS, budget.next(), false); // parked: halved down to nothing
        }
        long probe = budget.next();
        assertEquals(ONE_CPU ? 0 : NANOS, probe, "the 64th wait probes with the full budget");
        budget.ended(System.nanoTime() - NANOS / 2, probe, true); // late, but without parking
        assertEquals(ONE_CPU ? 0 : NANOS, budget.next(), "spinning pays again");
    }

    /** A budget halved by one wait that parked. */
    private static SpinBudget parkedOnce() {
        SpinBudget budget = new SpinBudget(NANOS);
        budget.ended(System.nanoTime() - 10 * NANOS, budget.next(), false);
        return budget;
    }

    @Test
    void aYieldingBudgetKeepsItsWholeBudgetWhateverWaitsCost() {
        SpinBudget budget = SpinBudget.yielding(NANOS);
        for (int i = 0; i < 200; i++) { // past the 64th wait, when an adaptive budget probes
            long limit = budget.next();
            assertEquals(ONE_CPU ? 0 : NANOS, limit, "wait " + i);
            budget.ended(System.nanoTime() - 10 * NANOS, limit, i % 2 == 0);
        }
    }

    @Test
    void aYieldingWaitEndsOnceItsBudgetIsSpent() {
        SpinBudget budget = SpinBudget.yielding(NANOS);
        long start = System.nanoTime();
        AtomicLong steps = new AtomicLong();
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            for (int spins = 1; budget.pause(start, spins, NANOS); spins++) {
                steps.incrementAndGet();
            }
        });
        assertTrue(System.nanoTime() - start > NANOS, "it yielded until the budget was spent");
        assertFalse(budget.pause(start, (int) steps.get() + 1, NANOS), "spent stays spent");
    }

    @Test
    void aVirtualThreadNeverSpins() throws Exception {
        SpinBudget budget = SpinBudget.yielding(NANOS);
        AtomicLong seen = new AtomicLong(-1);
        Thread thread = Thread.ofVirtual().start(() -> seen.set(budget.next()));
        assertTrue(thread.join(Duration.ofSeconds(10)), "the virtual thread ended");
        assertEquals(0, seen.get());
    }

    /** Long enough that a wait begun half of it ago is, whatever the machine's load, past its pure spin and within its budget. */
    private static final int LONG_NANOS = 1_000_000_000;

    /** One wait that yields its core once (it began half the budget ago: past the spin-first part) and then ends. */
    private static void waitThatYields(SpinBudget budget) {
        long limit = budget.next();
        long start = System.nanoTime() - LONG_NANOS / 2;
        assertEquals(!ONE_CPU, budget.pause(start, 16, limit), "within its budget (none with one processor)");
        budget.ended(start, limit, true);
    }

    @Test
    void aWaitThatEndsOnlyOnceItYieldedMakesTheNextYieldSooner() {
        SpinBudget budget = new SpinBudget(LONG_NANOS);
        assertEquals(ONE_CPU ? 0 : LONG_NANOS / 4, budget.spinFirst(), "a quarter of the budget at first");
        waitThatYields(budget);
        assertEquals(ONE_CPU ? 0 : LONG_NANOS / 8, budget.spinFirst(), "halved: the other thread ran only once it yielded");
        waitThatYields(budget);
        assertEquals(ONE_CPU ? 0 : LONG_NANOS / 16, budget.spinFirst(), "halved again");
        assertEquals(ONE_CPU ? 0 : LONG_NANOS, budget.next(), "the budget itself kept: no wait parked");
    }

    @Test
    void aWaitThatEndsInItsPureSpinLetsTheNextSpinLongerBeforeItYields() {
        SpinBudget budget = new SpinBudget(LONG_NANOS);
        for (int i = 0; i < 3; i++) {
            waitThatYields(budget);
        }
        long limit = budget.next();
        budget.ended(System.nanoTime(), limit, true); // ended at once, without yielding
        assertEquals(ONE_CPU ? 0 : LONG_NANOS / 16, budget.spinFirst(), "doubled from an eighth of a quarter");
    }

    @Test
    void aParkLeavesTheSpinFirstPartAndTheProbeRestoresIt() {
        SpinBudget budget = new SpinBudget(LONG_NANOS);
        waitThatYields(budget);
        long limit = budget.next();
        budget.ended(System.nanoTime() - 2L * LONG_NANOS, limit, false); // parked
        assertEquals(ONE_CPU ? 0 : LONG_NANOS / 8, budget.spinFirst(), "a park changes the budget only");
        for (int i = 0; i < 64 && (limit = budget.next()) != LONG_NANOS; i++) {
            budget.ended(System.nanoTime() - 2L * LONG_NANOS, limit, false); // parked: the part that only spins stays
        }
        assertEquals(ONE_CPU ? 0 : LONG_NANOS / 4, budget.spinFirst(), "the 64th wait probes with the whole spin-first part too");
    }

    @Test
    void aStepThatSpunOnItsOwnYieldsAtOncePastThePureSpin() {
        SpinBudget budget = new SpinBudget(LONG_NANOS);
        long limit = budget.next();
        long start = System.nanoTime() - LONG_NANOS / 2; // past the spin-first part, within the budget
        assertEquals(!ONE_CPU, budget.pauseAfterSpin(start, limit), "within its budget (none with one processor)");
        budget.ended(start, limit, true);
        assertEquals(ONE_CPU ? 0 : LONG_NANOS / 8, budget.spinFirst(), "its first step yielded: yield sooner next time");
    }

    @Test
    void aStepThatSpunOnItsOwnEndsTheWaitOnceTheBudgetIsSpent() {
        SpinBudget budget = new SpinBudget(NANOS);
        assertFalse(budget.pauseAfterSpin(System.nanoTime() - 2L * NANOS, NANOS), "past its budget at the first step: park");
    }

    @Test
    void aShortStepReadsTheClockOnlyEverySixteenth() {
        SpinBudget budget = new SpinBudget(LONG_NANOS);
        long limit = budget.next();
        long start = System.nanoTime() - LONG_NANOS / 2;
        assertTrue(budget.pause(start, 1, limit), "a spin");
        budget.ended(start, limit, true);
        assertEquals(ONE_CPU ? 0 : LONG_NANOS / 4, budget.spinFirst(), "the first short step only spun");
    }

    @Test
    void yieldsThatTookLongerThanTheBudgetStopUntilTheProbe() {
        assumeFalse(ONE_CPU, "with one processor a wait never spins");
        SpinBudget budget = new SpinBudget(LONG_NANOS);
        for (int i = 0; i < 5; i++) {
            budget.yielded(2L * LONG_NANOS); // each handed the core to another process for longer than a whole wait spins
        }
        assertTrue(budget.yieldsPay(), "five of them weigh 1 − (7/8)^5 = 49% of the average: not yet past the budget");
        budget.yielded(2L * LONG_NANOS);
        assertFalse(budget.yieldsPay(), "the sixth takes the average past the budget");
        long limit = budget.next();
        long start = System.nanoTime() - limit / 2; // past the spin-first part, and within the budget however loaded the machine
        assertTrue(budget.pauseAfterSpin(start, limit), "it spins on");
        budget.ended(start, limit, true);
        assertEquals(LONG_NANOS / 4, budget.spinFirst(), "it did not yield: the part that only spins is kept");
        for (int wait = 2; wait < 64; wait++) {
            budget.ended(System.nanoTime(), budget.next(), true);
        }
        assertFalse(budget.yieldsPay(), "kept until the probe");
        assertEquals(LONG_NANOS, budget.next(), "the 64th wait probes");
        assertTrue(budget.yieldsPay(), "and tries yields again");
    }

    @Test
    void yieldsThatHandTheCoreBackWithinTheBudgetGoOn() {
        assumeFalse(ONE_CPU, "with one processor a wait never spins");
        SpinBudget budget = new SpinBudget(NANOS);
        for (int i = 0; i < 100; i++) {
            budget.yielded(NANOS / 2); // the thread waited for ran, and handed the core back
        }
        assertTrue(budget.yieldsPay());
        budget.yielded(4L * NANOS); // one long one, as any machine has now and then
        assertTrue(budget.yieldsPay(), "one outlier weighs an eighth");
    }

    /** Found by review of 77e0c05: a budget halved by parks below the spin-first part never yielded. */
    @Test
    void aBudgetShrunkByParksStillYieldsAfterItsQuarter() {
        SpinBudget budget = new SpinBudget(LONG_NANOS);
        for (int i = 0; i < 2; i++) {
            long limit = budget.next();
            budget.ended(System.nanoTime() - 2L * LONG_NANOS, limit, false); // parked: a quarter of the budget left
        }
        long limit = budget.next();
        long start = System.nanoTime() - limit / 2; // past a quarter of this budget, within it
        assertEquals(!ONE_CPU, budget.pause(start, 16, limit), "within its budget (none with one processor)");
        budget.ended(start, limit, true);
        assertEquals(ONE_CPU ? 0 : LONG_NANOS / 8, budget.spinFirst(), "it yielded, then ended: yield sooner");
    }
}
