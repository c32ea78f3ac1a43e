package dev.moroutine.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A batch of tasks that reaches a member where its pool is not open (closed, or its members shutting
 * down) is answered task by task, in the batch reply's shape, so the caller settles each task
 * instead of reading a lone answer as a batch.
 */
class AnswerEachTest {

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 17})
    void everyTaskOfTheBatchGetsTheAnswerUnderItsOwnSequenceNumber(int count) {
        SplittableRandom random = new SplittableRandom(count);
        long[] seqs = new long[count];
        int size = Integer.BYTES;
        byte[][] requests = new byte[count][];
        for (int i = 0; i < count; i++) {
            seqs[i] = random.nextLong();
            requests[i] = new byte[random.nextInt(40)];
            random.nextBytes(requests[i]);
            size += 2 * Long.BYTES + Integer.BYTES + requests[i].length;
        }
        ByteBuffer batch = ByteBuffer.allocate(size).putInt(count);
        for (int i = 0; i < count; i++) {
            batch.putLong(seqs[i]).putLong(random.nextLong()).putInt(requests[i].length).put(requests[i]);
        }
        byte[] answer = MemberSide.tagged(MemberSide.CANCELLED, "pool p is not open".getBytes(StandardCharsets.UTF_8));

        ByteBuffer reply = ByteBuffer.wrap(MemberSide.answerEach(batch.array(), answer));

        assertEquals(count, reply.getInt());
        for (int i = 0; i < count; i++) {
            assertEquals(seqs[i], reply.getLong());
            byte[] got = new byte[reply.getInt()];
            reply.get(got);
            assertArrayEquals(answer, got);
        }
        assertEquals(0, reply.remaining());
    }
}
