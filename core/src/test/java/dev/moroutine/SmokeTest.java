package dev.moroutine;

import static dev.moroutine.Moroutine.*;
import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class SmokeTest {
    static final Mo1<Long, Boolean> isPrime = mo(n -> {
        if (n < 2) return false;
        for (long i = 2; i * i <= n; i++) if (n % i == 0) return false;
        return true;
    });

    @Test
    void runs() {
        assertTrue(isPrime.call(999_999_937L).join());
        try (var pool = workers(2)) {
            assertFalse(pool.run(isPrime.call(8L)));
            assertEquals(java.util.List.of(true, false), pool.runAll(java.util.List.of(isPrime.call(7L), isPrime.call(9L))));
        }
    }
}
