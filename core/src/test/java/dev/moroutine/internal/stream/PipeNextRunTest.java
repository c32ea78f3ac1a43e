package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** {@link Pipe#nextRun}'s refusal of an empty array. */
class PipeNextRunTest {

    @Test
    void anEmptyArrayIsRefusedBeforeAnItemIsTaken() {
        Pipe<Object> pipe = Pipe.forwarding(4, "test pipe");
        pipe.emit("a");
        pipe.finish();
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> pipe.nextRun(new Object[0]));
        assertEquals("a run of test pipe was taken into an empty array; give it room for one item at least", refused.getMessage());
        Object[] run = new Object[2];
        assertEquals(1, pipe.nextRun(run));
        assertArrayEquals(new Object[] {"a", null}, run);
        assertEquals(0, pipe.nextRun(run));
    }
}
