package dev.moroutine.isolated.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.moroutine.internal.dispatch.Invocation;
import dev.moroutine.internal.dispatch.TaskArg;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A task as it crosses: its moroutine's id, whatever its characters, and its arguments, task-args included. */
@Timeout(30)
class CodecInvocationTest {

    private final Codec codec = new Codec(List.of(), 2);

    /** An invocation as the sender has it: only its id and arguments cross. */
    private static final class Sent extends Invocation {
        private final String id;

        Sent(String id, Object... args) {
            super(args);
            this.id = id;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        protected Object invoke(Object[] resolved) {
            throw new AssertionError("never run here");
        }
    }

    /** The receiver's side: makes each call as it was named, and keeps each task-arg's first invocation. */
    private static final class Received implements Codec.Calls {
        final List<String> ids = new ArrayList<>();
        final List<Long> keys = new ArrayList<>();

        @Override
        public Invocation call(String id, Object[] args) {
            ids.add(id);
            return new Sent(id, args);
        }

        @Override
        public Invocation taskArg(long key, Invocation decoded) {
            keys.add(key);
            return decoded;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"com.example.Jobs#noop", "com.exemple.Tâches#café", "数据.作业#計算", "a.B$C#emoji\uD83D\uDE00", "x#", ""})
    void theIdAndTheArgumentsComeBackAsTheyWereSent(String id) {
        Sent taskArg = new Sent(id + "#arg", 7, "seven");
        Sent sent = new Sent(id, 1, "two", null, List.of(3L, 4.0), new TaskArg(taskArg));
        Received received = new Received();

        Invocation back = codec.decodeInvocation(codec.encodeInvocation(sent, "test"), received);

        assertEquals(id, back.id());
        assertEquals(List.of(id + "#arg", id), received.ids); // the task-arg is made first, as it is read first
        Object[] args = back.args();
        assertArrayEquals(new Object[] {1, "two", null, List.of(3L, 4.0)}, Arrays.copyOf(args, 4));
        Invocation arg = assertInstanceOf(TaskArg.class, args[4]).task();
        assertEquals(id + "#arg", arg.id());
        assertArrayEquals(new Object[] {7, "seven"}, arg.args());
    }

    @Test
    void aTaskArgKeepsOneKeyEachTimeItIsSentAndAnotherHasItsOwn() {
        Sent shared = new Sent("a.Jobs#shared");
        Sent other = new Sent("a.Jobs#shared"); // the same id and arguments, yet another invocation: another value
        Received received = new Received();
        for (Sent first : List.of(new Sent("a.Jobs#f", new TaskArg(shared)),
                new Sent("a.Jobs#g", new TaskArg(shared), new TaskArg(other)))) {
            codec.decodeInvocation(codec.encodeInvocation(first, "test"), received);
        }
        List<Long> keys = received.keys;
        assertEquals(3, keys.size(), keys.toString());
        assertEquals(keys.get(0), keys.get(1), "the receiver caches the value of one invocation under one key: " + keys);
        assertNotEquals(keys.get(0), keys.get(2), "two invocations, equal as to id and arguments, have two keys: " + keys);
        assertNotEquals(0L, keys.get(0));
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void idsOfEveryLengthAndCharacterComeBackWhole(long seed) {
        Random random = new Random(seed);
        for (int round = 0; round < 500; round++) {
            StringBuilder id = new StringBuilder();
            for (int length = random.nextInt(300); id.length() < length; ) {
                int codePoint = random.nextInt(4) == 0 ? random.nextInt(0x20, 0x80) : random.nextInt(0x80, 0x10FFFF + 1);
                if (codePoint < Character.MIN_SURROGATE || codePoint > Character.MAX_SURROGATE) { // a lone half has no UTF-8
                    id.appendCodePoint(codePoint);
                }
            }
            String sent = id.toString();
            Invocation back = codec.decodeInvocation(codec.encodeInvocation(new Sent(sent), "test"), new Received());
            assertEquals(sent, back.id(), "round " + round + " of seed " + seed);
        }
    }
}
