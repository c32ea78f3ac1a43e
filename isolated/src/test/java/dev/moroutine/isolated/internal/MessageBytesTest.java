package dev.moroutine.isolated.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.fory.memory.MemoryBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The place messages are decoded from, kept from one message to the next: each reads exactly its own bytes. */
class MessageBytesTest {

    private final Codec codec = new Codec(List.of(), 1);

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void eachMessageDecodesToItsOwnValueWhateverTheSizesBeforeIt(long seed) {
        Random random = new Random(seed);
        MessageBytes bytes = new MessageBytes();
        List<String> sent = new ArrayList<>();
        List<Object> decoded = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            // Small and large messages mixed, so a short one follows a long one through the same Fory buffer.
            String value = "x".repeat(random.nextInt(4) == 0 ? random.nextInt(70_000) : random.nextInt(40)) + i;
            byte[] encoded = codec.encodeValue(value, null, "test");
            int offset = random.nextInt(9); // where the message starts in the ring
            UnsafeBuffer ring = new UnsafeBuffer(new byte[offset + encoded.length + 7]);
            ring.putBytes(offset, encoded);
            ring.setMemory(offset + encoded.length, 7, (byte) 0x7F); // what follows must not be read
            MemoryBuffer in = bytes.copy(ring, offset, encoded.length);
            sent.add(value);
            decoded.add(codec.decodeValue(in));
            assertEquals(encoded.length, in.readerIndex(), "message " + i + " read to its end, and no further");
        }
        assertEquals(sent, decoded);
    }

    @Test
    void aDecodedByteBufferKeepsItsBytesAfterTheNextMessage() {
        // Fory reads a ByteBuffer as a view of the bytes it decodes, not a copy.
        MessageBytes bytes = new MessageBytes();
        byte[] first = codec.encodeValue(ByteBuffer.wrap(new byte[] {1, 1, 1}), null, "test");
        byte[] second = codec.encodeValue(ByteBuffer.wrap(new byte[] {2, 2, 2}), null, "test");
        ByteBuffer decoded = (ByteBuffer) codec.decodeValue(bytes.copy(new UnsafeBuffer(first), 0, first.length));
        codec.decodeValue(bytes.copy(new UnsafeBuffer(second), 0, second.length));
        byte[] kept = new byte[decoded.remaining()];
        decoded.duplicate().get(kept);
        assertArrayEquals(new byte[] {1, 1, 1}, kept);
    }
}
