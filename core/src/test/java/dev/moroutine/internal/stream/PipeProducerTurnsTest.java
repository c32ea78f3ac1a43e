package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pipe fed from another process ({@link Pipe#of}) takes items from whichever thread reads that
 * process's messages, in turns (a worker JVM's worker thread may read a task's first batch, its
 * reader the next); any other pipe keeps to its first producer thread, and says so.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PipeProducerTurnsTest {

    @Test
    void aPipeFedFromAnotherProcessTakesItemsFromThreadsTakingTurns() throws Exception {
        Pipe<Object> pipe = Pipe.of(16, "stream argument 1 of a task");
        for (int turn = 0; turn < 4; turn++) {
            int first = 3 * turn;
            Thread reader = Thread.ofPlatform().start(turn % 2 == 0
                    ? () -> pipe.emitRun(new Object[] {first, first + 1, first + 2}, 3)
                    : () -> {
                        for (int i = first; i < first + 3; i++) {
                            pipe.emit(i);
                        }
                    });
            reader.join(); // the next turn's thread starts after: as the `reading` flag orders a worker JVM's readers
        }
        pipe.finish();
        List<Object> taken = new ArrayList<>();
        for (Object item; (item = pipe.next()) != Pipe.END; ) {
            taken.add(item);
        }
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), taken);
    }

    @Test
    void anyOtherPipeRefusesASecondProducerThread() throws Exception {
        Pipe<Object> pipe = new Pipe<>(16, "stream of a task");
        Thread first = Thread.ofPlatform().name("first producer").start(() -> pipe.emit(1));
        first.join();
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> pipe.emit(2));
        assertTrue(refused.getMessage().contains("whose producer is first producer: an Emitter is used by its moroutine's"
                + " own thread only"), refused.getMessage());
    }
}
