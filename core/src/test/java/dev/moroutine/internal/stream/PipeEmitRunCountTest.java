package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Pipe#emitRun}: a count outside the run (negative, or beyond its length) is a bad
 * input. A negative count returned as if the run had been emitted; a count beyond the run threw a
 * bare ArrayIndexOutOfBoundsException naming neither the pipe nor the count.
 */
@Timeout(20)
class PipeEmitRunCountTest {

    @ParameterizedTest(name = "count {0} of a run of 2")
    @ValueSource(ints = {-1, 3})
    void aCountOutsideTheRunIsRefusedWithAMessageBeforeAnyItemGoes(int count) {
        Pipe<Object> pipe = Pipe.of(4, "test pipe");
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> pipe.emitRun(new Object[] {"a", "b"}, count));
        assertTrue(refused.getMessage().contains("test pipe") && refused.getMessage().contains(Integer.toString(count)),
                refused.getMessage());
        pipe.finish();
        assertEquals(ItemSource.END, pipe.next(), "an item of the refused run was emitted");
    }
}
