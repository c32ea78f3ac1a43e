package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.function.ToIntFunction;

/**
 * The stress harness the pipe tests share: a producer and a consumer on two threads of one
 * builder, each with a seeded random of its own; the consumer checks that the items are 0, 1, 2 …
 * in order, and both are awaited with a deadline.
 */
final class PipeStress {

    private PipeStress() {}

    /** What the producer thread does: emit 0 … n-1 into the pipe (it is finished after), stalling with the random as it likes. */
    interface Producer {
        void produce(SplittableRandom random);
    }

    /**
     * Runs a producer and a consumer over {@code pipe} and returns how many items arrived.
     *
     * @param afterTake called on the consumer's thread with the count taken so far, after each item
     * @param stall how long the consumer waits after each item, given its random (as a count of spins)
     */
    static int run(Pipe<Integer> pipe, Thread.Builder builder, long seed, Producer producer, IntConsumer afterTake,
            ToIntFunction<SplittableRandom> stall) throws Exception {
        CompletableFuture<Void> produced = new CompletableFuture<>();
        builder.start(() -> {
            try {
                producer.produce(new SplittableRandom(seed));
                pipe.finish();
                produced.complete(null);
            } catch (Throwable e) {
                produced.completeExceptionally(e);
            }
        });
        CompletableFuture<Integer> consumed = new CompletableFuture<>();
        builder.start(() -> {
            try {
                SplittableRandom random = new SplittableRandom(~seed);
                int expected = 0;
                for (Object item = pipe.next(); item != ItemSource.END; item = pipe.next()) {
                    assertEquals(expected++, item, "items arrive in order");
                    afterTake.accept(expected);
                    for (int spins = stall.applyAsInt(random); spins > 0; spins--) {
                        Thread.onSpinWait();
                    }
                }
                consumed.complete(expected);
            } catch (Throwable e) {
                consumed.completeExceptionally(e);
            }
        });
        produced.get(60, TimeUnit.SECONDS);
        return consumed.get(60, TimeUnit.SECONDS);
    }

    /** Now and then (one time in {@code oneIn}) a short busy stall, so that the other side finds the pipe full or empty. */
    static void stall(SplittableRandom random, int oneIn) {
        for (int spins = stallSpins(random, oneIn); spins > 0; spins--) {
            Thread.onSpinWait();
        }
    }

    /** How many spins a {@link #stall} takes: usually none. */
    static int stallSpins(SplittableRandom random, int oneIn) {
        return random.nextInt(oneIn) == 0 ? random.nextInt(2_000) : 0;
    }
}
