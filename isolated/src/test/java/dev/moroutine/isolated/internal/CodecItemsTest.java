package dev.moroutine.isolated.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.fory.memory.MemoryBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A batch of stream items as it crosses: the items back in order, whatever their classes, and what cannot cross refused. */
@Timeout(30)
class CodecItemsTest {

    /** Registered below: an item of a class of the application's. */
    public record Point(int x, int y) {}

    /** Never registered. */
    public record Secret(String value) {}

    private final Codec codec = new Codec(List.of(Point.class), 2);

    private Object[] roundTrip(Object[] items, int from, int count) {
        MemoryBuffer out = MemoryBuffer.newHeapBuffer(16);
        out.writerIndex(3); // after a header, as an answer has one
        int encoded = codec.encodeItems(items, from, count, out, 1 << 20, null, "test");
        assertEquals(count, encoded);
        return codec.decodeItems(out.getBytes(0, out.writerIndex()), 3, count);
    }

    @Test
    void itemsOfOneClassComeBackInOrder() {
        Object[] numbers = new Object[1024];
        for (int i = 0; i < numbers.length; i++) {
            numbers[i] = i * 7919;
        }
        assertArrayEquals(numbers, roundTrip(numbers, 0, numbers.length));
        assertArrayEquals(new Object[] {7919 * 10, 7919 * 11}, roundTrip(numbers, 10, 2));
    }

    @Test
    void itemsOfManyClassesComeBackInOrder() {
        Object[] mixed = {1, "two", 3L, new Point(4, 4), List.of(5, "five"), 6.0, new Point(7, 7), "eight"};
        assertArrayEquals(mixed, roundTrip(mixed, 0, mixed.length));
    }

    @Test
    void anObjectTwoItemsShareIsStillSharedAfterTheCrossing() {
        ArrayList<String> shared = new ArrayList<>(List.of("a", "b"));
        Object[] back = roundTrip(new Object[] {shared, "between", shared}, 0, 3);
        assertEquals(shared, back[0]);
        assertSame(back[0], back[2]);
    }

    @Test
    void itemsBeyondTheBudgetWaitForTheNextBatch() {
        Object[] words = new Object[64];
        for (int i = 0; i < words.length; i++) {
            words[i] = "word number " + i + " of a batch larger than its budget";
        }
        MemoryBuffer out = MemoryBuffer.newHeapBuffer(16);
        int encoded = codec.encodeItems(words, 0, words.length, out, 1000, null, "test");
        assertTrue(encoded > 0 && encoded < words.length, "encoded " + encoded);
        assertTrue(out.writerIndex() <= 1000, "took " + out.writerIndex() + " bytes");
        Object[] back = codec.decodeItems(out.getBytes(0, out.writerIndex()), 0, encoded);
        for (int i = 0; i < encoded; i++) {
            assertEquals(words[i], back[i]);
        }
    }

    @Test
    void anItemOfAnUnregisteredClassIsRefusedByName() {
        Object[] items = {1, new Secret("no"), 3};
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> codec.encodeItems(items, 0, items.length, MemoryBuffer.newHeapBuffer(16), 1 << 20, null, "w1"));
        assertTrue(refused.getMessage().contains("cannot cross between this JVM and isolated worker w1: it is a "
                + Secret.class.getName()), refused.getMessage());
    }

    @Test
    void aCountThatDoesNotMatchTheBatchIsAnError() {
        MemoryBuffer out = MemoryBuffer.newHeapBuffer(16);
        codec.encodeItems(new Object[] {1, 2}, 0, 2, out, 1 << 20, null, "test");
        IllegalStateException wrong = assertThrows(IllegalStateException.class,
                () -> codec.decodeItems(out.getBytes(0, out.writerIndex()), 0, 3));
        assertEquals("3 items were sent, 2 arrived", wrong.getMessage());
    }
}
