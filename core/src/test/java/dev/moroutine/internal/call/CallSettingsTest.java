package dev.moroutine.internal.call;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.Moroutine.workers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Mo2;
import dev.moroutine.Pool;
import dev.moroutine.WorkerHandle;
import dev.moroutine.internal.dispatch.Endpoint;
import dev.moroutine.internal.dispatch.StreamArg;
import dev.moroutine.testing.NoLeakedWorkers;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** A call's assignment, own timeout and stream flag, which it keeps in one object apart from its arguments. */
@ExtendWith(NoLeakedWorkers.class)
@Timeout(60)
class CallSettingsTest {

    static final Mo2<Object, Object, Object> two = mo((a, b) -> null);

    private static final Definition DEFINITION = new Definition(two, Definition.callSite(Pool.class), args -> null);
    private static final Endpoint ENDPOINT = consumer -> worker -> "opened";

    @Test
    void aPlainCallHasNoneOfThem() {
        Call<Object> plain = DEFINITION.call(1, 2);
        assertNull(plain.timeout());
        assertNull(plain.assigned());
        assertFalse(plain.takesStream());
        assertFalse(Call.ofValues(DEFINITION, new Object[] {1, 2}).takesStream());
    }

    /** The flag is found when the call is made, and every copy keeps it: a lost flag would pass the endpoint to the function unbound. */
    @Test
    void theStreamFlagIsFoundOnceAndKeptByEveryCopy() {
        try (Pool pool = workers(2)) {
            WorkerHandle second = pool.workers().get(1);
            Call<Object> withStream = DEFINITION.call(1, new StreamArg(ENDPOINT));
            assertTrue(withStream.takesStream());
            Call<Object> timed = withStream.withTimeout(Duration.ofSeconds(5));
            Call<Object> both = timed.assignedTo(second);
            assertTrue(timed.takesStream());
            assertTrue(both.takesStream());
            assertTrue(withStream.assignedTo(second).withTimeout(Duration.ofSeconds(5)).takesStream());
            assertFalse(DEFINITION.call(1, 2).withTimeout(Duration.ofSeconds(5)).assignedTo(second).takesStream());
        }
    }

    @Test
    void assignmentAndTimeoutAreKeptByEachOthersCopies() {
        try (Pool pool = workers(2)) {
            WorkerHandle second = pool.workers().get(1);
            Call<Object> both = DEFINITION.call(1, 2).assignedTo(second).withTimeout(Duration.ofSeconds(7));
            assertSame(second, both.assigned());
            assertSame(second, both.defaultWorker());
            assertEquals(Duration.ofSeconds(7), both.timeout());
            Call<Object> reassigned = both.assignedTo(pool.workers().get(0));
            assertSame(pool.workers().get(0), reassigned.assigned());
            assertEquals(Duration.ofSeconds(7), reassigned.timeout());
            assertEquals(Duration.ofSeconds(1), both.withTimeout(Duration.ofSeconds(1)).timeout());
            assertSame(second, both.withTimeout(Duration.ofSeconds(1)).assigned());
        }
    }
}
