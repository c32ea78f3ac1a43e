package dev.moroutine.shared;

import static dev.moroutine.shared.Shared.*;
import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code string(n)} at its limit with 1-, 2-, 3- and 4-byte characters, and seeded random strings. */
class Utf8Test {

    static Stream<Arguments> characters() {
        return Stream.of(
                Arguments.of("a", 1),
                Arguments.of("é", 2),
                Arguments.of("€", 3),
                Arguments.of("😀", 4));
    }

    /** A string that fills the maximum exactly fits; one more character of any width does not. */
    @ParameterizedTest(name = "{0} ({1} bytes)")
    @MethodSource("characters")
    void aCharacterAtTheLimit(String character, int width) {
        for (int max = 1; max <= 12; max++) {
            Str s = shared(string(max));
            int fit = max / width;
            String fits = character.repeat(fit);
            s.store(fits);
            assertEquals(fits, s.load());
            String over = fits + character;
            int overBytes = (fit + 1) * width;
            var e = assertThrows(IllegalArgumentException.class, () -> s.store(over));
            assertEquals("string of " + overBytes + " UTF-8 bytes is over the maximum of " + max + " bytes of string("
                    + max + "); shorten it or declare a larger maximum", e.getMessage());
            assertEquals(fits, s.load(), "a refused store leaves the string");
        }
    }

    /** Padding the remainder with one-byte characters: a wide character is refused whole, never split. */
    @ParameterizedTest(name = "{0} ({1} bytes)")
    @MethodSource("characters")
    void aWideCharacterIsNeverSplitAtTheBoundary(String character, int width) {
        int max = 10;
        Str s = shared(string(max));
        for (int prefix = 0; prefix <= max; prefix++) {
            String candidate = "a".repeat(prefix) + character;
            if (prefix + width <= max) {
                s.store(candidate);
                assertEquals(candidate, s.load());
            } else {
                assertThrows(IllegalArgumentException.class, () -> s.store(candidate));
                byte[] stored = s.load().getBytes(StandardCharsets.UTF_8);
                assertTrue(stored.length <= max);
            }
        }
    }

    static IntStream seeds() {
        return IntStream.range(0, 20);
    }

    /** Random strings over all planes round-trip when they fit and are refused when they don't. */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomStringsRoundTripOrAreRefused(int seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Str s = shared(string(24));
        for (int i = 0; i < 200; i++) {
            StringBuilder b = new StringBuilder();
            int length = random.nextInt(12);
            for (int c = 0; c < length; c++) {
                int codePoint = switch (random.nextInt(4)) {
                    case 0 -> random.nextInt(0x20, 0x80);
                    case 1 -> random.nextInt(0x80, 0x800);
                    case 2 -> random.nextInt(0x800, 0xD800);
                    default -> random.nextInt(0x10000, 0x110000);
                };
                b.appendCodePoint(codePoint);
            }
            String value = b.toString();
            int bytes = value.getBytes(StandardCharsets.UTF_8).length;
            if (bytes <= 24) {
                s.store(value);
                assertEquals(value, s.load());
            } else {
                String before = s.load();
                var e = assertThrows(IllegalArgumentException.class, () -> s.store(value));
                assertTrue(e.getMessage().startsWith("string of " + bytes + " UTF-8 bytes is over the maximum of 24"));
                assertEquals(before, s.load());
            }
        }
    }
}
