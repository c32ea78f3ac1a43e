package dev.moroutine.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runs the tour, so that the examples cannot rot: each must end with a passing check line. The
 * output is captured, and shown only when an assertion fails.
 */
class TourTest {

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void everyExampleEndsWithAPassingCheck() {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.out;
        int failed;
        try (PrintStream capture = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            System.setOut(capture);
            failed = Tour.run();
        } finally {
            System.setOut(original);
        }
        String output = captured.toString(StandardCharsets.UTF_8);

        assertEquals(0, failed, "examples failed:\n" + output);
        for (Tour.Example example : Tour.EXAMPLES) {
            String header = "=== " + example.name() + " ===";
            int start = output.indexOf(header);
            assertTrue(start >= 0, "no header " + header + " in:\n" + output);
            int end = output.indexOf("\n=== ", start + header.length());
            List<String> lines = output.substring(start, end < 0 ? output.length() : end).lines()
                    .filter(line -> !line.isBlank() && !line.startsWith("tour: "))
                    .toList();
            String last = lines.getLast();
            assertTrue(last.startsWith("check: OK ("), example.name() + " ended with \"" + last + "\", not a passing check");
        }
    }
}
