package dev.moroutine.isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.Pool;
import dev.moroutine.stream.LiveStream;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A streaming task whose arguments take as many bytes as a dispatch accepts: its request carries
 * four bytes more than a value task's (the stream's high-water mark), so it must still fit the
 * request ring's largest message.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LargestStreamTaskTest {

    private static final Pattern REFUSAL = Pattern.compile("take (\\d+) bytes encoded, more than the (\\d+) that");

    @Test
    void aStreamingTaskOfTheLargestAcceptedSizeRunsAndTheWorkerGoesOn() {
        try (Pool pool = Isolated.workers(1)) {
            int probe = 200_000;
            String refused = assertThrows(IllegalArgumentException.class,
                    () -> pool.run(StreamJobs.lengthOf.call("x".repeat(probe)))).getMessage();
            Matcher sizes = REFUSAL.matcher(refused);
            assertTrue(sizes.find(), refused);
            int overhead = Integer.parseInt(sizes.group(1)) - probe;
            int largest = Integer.parseInt(sizes.group(2)) - overhead; // the longest text a dispatch accepts
            assertThrows(IllegalArgumentException.class, () -> pool.run(StreamJobs.lengthOf.call("x".repeat(largest + 1))),
                    "one more character is refused: the text is of the largest accepted size");
            try (LiveStream<Integer> items = pool.run(StreamJobs.lengthOf.call("x".repeat(largest)))) {
                assertEquals(List.of(largest), items.toList());
            }
            assertEquals(9, pool.run(Jobs.square.call(3)), "the worker goes on");
        }
    }
}
