package dev.moroutine.internal.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The producer's cached room limit and the consumer's later look (high-water marks of 64 and more)
 * keep every guarantee of the pipe: 100,000 items exactly once and in order, the producer never
 * more than the high-water mark ahead of the consumer (checked at every take), with emit, emitRun
 * and room()-sized bursts mixed, consumers that use next(), awaitReady() then poll(), or nextRun(),
 * on platform threads (which spin, and look again later) and virtual threads (which do not), and
 * forwarding pipes whose room comes from acknowledge().
 */
@Timeout(300)
class PipeRoomLimitStressTest {

    private static final int ITEMS = 100_000;

    /** Producer: 0..n-1 by emit and emitRun mixed, publishing its count after each call returns. */
    private static CompletableFuture<Void> produce(Pipe<Integer> pipe, AtomicLong published, long seed, Thread.Builder builder) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        builder.start(() -> {
            try {
                SplittableRandom random = new SplittableRandom(seed);
                int next = 0;
                while (next < ITEMS) {
                    int r = random.nextInt(10);
                    if (r < 6) {
                        pipe.emit(next++);
                        published.set(next);
                    } else if (r < 8) {
                        int n = Math.min(ITEMS - next, 1 + random.nextInt(2 * pipe.highWaterMark()));
                        Integer[] run = new Integer[n];
                        for (int i = 0; i < n; i++) {
                            run[i] = next + i;
                        }
                        pipe.emitRun(run, n);
                        next += n;
                        published.set(next);
                    } else if (r < 9) {
                        int room = pipe.room();
                        assertTrue(room >= 0 && room <= pipe.highWaterMark(), "room " + room);
                        for (int i = 0; i < room && next < ITEMS; i++) {
                            assertTrue(pipe.hasRoom(), "room() said there was room for " + room);
                            pipe.emit(next++);
                            published.set(next);
                        }
                    } else {
                        for (int s = random.nextInt(2_000); s > 0; s--) {
                            Thread.onSpinWait();
                        }
                    }
                }
                pipe.finish();
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        });
        return done;
    }

    private static void check(int highWaterMark, boolean forwarding, int mode, Thread.Builder builder, long seed) throws Exception {
        Pipe<Integer> pipe = forwarding ? cast(Pipe.forwarding(highWaterMark, "the forwarding test pipe"))
                : new Pipe<>(highWaterMark, "the test pipe");
        AtomicLong published = new AtomicLong();
        AtomicLong acked = new AtomicLong();
        CompletableFuture<Void> produced = produce(pipe, published, seed, builder);
        CompletableFuture<Integer> consumed = new CompletableFuture<>();
        builder.start(() -> {
            try {
                SplittableRandom random = new SplittableRandom(~seed);
                int expected = 0;
                Object[] batch = new Object[1 + random.nextInt(3 * highWaterMark)];
                while (true) {
                    long p = published.get();
                    long limit = (forwarding ? acked.get() : expected) + highWaterMark;
                    if (p > limit) {
                        throw new AssertionError("the producer led by " + (p - limit + highWaterMark) + " > " + highWaterMark
                                + " (hwm " + highWaterMark + ", forwarding " + forwarding + ")");
                    }
                    int n;
                    if (mode == 0 || random.nextInt(4) == 0) {
                        Object item = pipe.next();
                        if (item == ItemSource.END) {
                            break;
                        }
                        batch[0] = item;
                        n = 1;
                    } else if (mode == 1) {
                        while (!pipe.awaitReady(System.nanoTime() + random.nextInt(20_000))) {
                            // deadline: look again
                        }
                        Object item = pipe.poll();
                        if (item == null) {
                            item = pipe.next();
                            if (item == ItemSource.END) {
                                break;
                            }
                        }
                        batch[0] = item;
                        n = 1;
                    } else {
                        n = pipe.nextRun(batch);
                        if (n == 0) {
                            break;
                        }
                    }
                    for (int i = 0; i < n; i++) {
                        assertEquals(expected++, batch[i], "items arrive in order");
                    }
                    if (forwarding) { // before the consumer could wait again: else the producer may wait for this ack
                        acked.set(expected);
                        pipe.acknowledge(expected);
                    }
                    for (int s = random.nextInt(4) == 0 ? random.nextInt(300) : 0; s > 0; s--) {
                        Thread.onSpinWait();
                    }
                }
                consumed.complete(expected);
            } catch (Throwable e) {
                consumed.completeExceptionally(e);
                pipe.cancel();
            }
        });
        assertEquals(ITEMS, consumed.get(120, TimeUnit.SECONDS), "items taken");
        produced.get(120, TimeUnit.SECONDS);
    }

    @SuppressWarnings("unchecked")
    private static Pipe<Integer> cast(Pipe<Object> pipe) {
        return (Pipe<Integer>) (Pipe<?>) pipe;
    }

    @Test
    void platformThreadsAtMarksThatLookAgainLaterAndAtOneThatDoesNot() throws Exception {
        long seed = 1;
        for (int hwm : new int[] {64, 65, 100, 128, 3}) {
            for (int mode = 0; mode < 3; mode++) {
                check(hwm, false, mode, Thread.ofPlatform().daemon(), seed++);
            }
        }
    }

    @Test
    void virtualThreadsWhichNeverSpin() throws Exception {
        long seed = 100;
        for (int hwm : new int[] {64, 7}) {
            for (int mode = 0; mode < 3; mode++) {
                check(hwm, false, mode, Thread.ofVirtual(), seed++);
            }
        }
    }

    @Test
    void forwardingPipesWhoseRoomIsAcknowledged() throws Exception {
        long seed = 200;
        for (int hwm : new int[] {64, 100, 5}) {
            check(hwm, true, 2, Thread.ofPlatform().daemon(), seed++);
        }
    }
}
