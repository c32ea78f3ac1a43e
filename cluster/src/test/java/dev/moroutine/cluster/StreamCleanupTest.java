package dev.moroutine.cluster;

import static org.junit.jupiter.api.Assertions.*;

import com.hazelcast.core.HazelcastInstance;
import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import dev.moroutine.WorkerHandle;
import dev.moroutine.stream.LiveStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a stream closed early leaves behind (the caller's pump, the member's forwarder), and seeded shapes. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class StreamCleanupTest {

    static { // the thread dump is taken through java.management, which the module under test does not read
        StreamCleanupTest.class.getModule().addReads(ModuleLayer.boot().findModule("java.management").orElseThrow());
    }

    private static Members members;
    private static List<HazelcastInstance> two;

    @BeforeAll
    static void startMembers() {
        members = new Members("stream-cleanup");
        two = members.start(2);
    }

    @AfterAll
    static void stopMembers() {
        members.close();
    }

    /** Threads (virtual ones too) whose name matches, from a JSON thread dump of this JVM. */
    private static int threadsNamed(String regex) throws IOException {
        return threadsNamed(regex, new StringBuilder());
    }

    /** The count, and the first such thread's stack in {@code first}. */
    private static int threadsNamed(String regex, StringBuilder first) throws IOException {
        Path dir = Files.createTempDirectory("thread-dump");
        Path file = dir.resolve("threads.json");
        try {
            try { // through the MBean server: com.sun.management is not read by this module
                ManagementFactory.getPlatformMBeanServer().invoke(new ObjectName("com.sun.management:type=HotSpotDiagnostic"),
                        "dumpThreads", new Object[] {file.toString(), "JSON"}, new String[] {"java.lang.String", "java.lang.String"});
            } catch (JMException failed) {
                throw new IOException(failed);
            }
            String text = Files.readString(file);
            Matcher names = Pattern.compile("\"name\": \"(" + regex + ")\"").matcher(text);
            int count = 0;
            while (names.find()) {
                if (count++ == 0) {
                    first.append(text, names.start(), Math.min(names.start() + 1500, text.length()));
                }
            }
            return count;
        } finally {
            Files.deleteIfExists(file);
            Files.deleteIfExists(dir);
        }
    }

    /** Waits, with a deadline, until no thread matches; the last count otherwise. */
    private static String awaitNone(String regex) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (;;) {
            StringBuilder first = new StringBuilder();
            int count = threadsNamed(regex, first);
            if (count == 0) {
                return "none";
            }
            if (System.nanoTime() > deadline) {
                return count + " left, the first: " + first;
            }
            Thread.yield(); // re-dump until the deadline: a condition, not a sleep
        }
    }

    @Test
    void streamsClosedEarlyLeaveNoPumpNorForwarder() throws IOException {
        try (Pool pool = Members.pool(two.get(0), 64)) {
            WorkerHandle remote = Members.remote(pool);
            try (LiveStream<Integer> open = pool.run(Moroutine.assign(remote, Jobs.numbers.call(Integer.MAX_VALUE)))) {
                assertEquals(0, open.iterator().next());
                assertTrue(threadsNamed(".*-stream-\\d+") >= 1, "the dump sees a pump thread");
            }
            for (int i = 0; i < 100; i++) {
                try (LiveStream<Integer> items = pool.run(Moroutine.assign(remote, Jobs.numbers.call(Integer.MAX_VALUE)))) {
                    Iterator<Integer> it = items.iterator();
                    for (int k = 0; k < 10; k++) {
                        assertEquals(k, it.next());
                    }
                }
            }
            assertEquals(9, pool.run(Moroutine.assign(remote, Jobs.square.call(3))));
            assertEquals("none", awaitNone("moroutine-cluster-forwarder"), "forwarder threads left on the member");
            assertEquals("none", awaitNone(".*-stream-\\d+"), "pump threads left in the caller");
        }
    }

    /** Seeded high-water marks, sizes and consumer speeds: every item once, in order, then the end. */
    @Test
    void seededShapesCarryEveryItemOnceInOrder() {
        SplittableRandom seeds = new SplittableRandom(1201);
        for (int round = 0; round < 40; round++) {
            int highWaterMark = 1 + seeds.nextInt(seeds.nextBoolean() ? 8 : 3000);
            int count = seeds.nextInt(20_000);
            int pauseEvery = 1 + seeds.nextInt(500);
            try (Pool pool = Members.pool(two.get(0), highWaterMark);
                    LiveStream<Integer> items = pool.run(Moroutine.assign(Members.remote(pool), Jobs.numbers.call(count)))) {
                Iterator<Integer> it = items.iterator();
                for (int i = 0; i < count; i++) {
                    assertEquals(i, it.next(), "round " + round + " hwm " + highWaterMark + " count " + count);
                    if (i % pauseEvery == 0) {
                        for (long until = System.nanoTime() + 200_000; System.nanoTime() < until; ) {
                            Thread.onSpinWait(); // a slow consumer now and then
                        }
                    }
                }
                assertFalse(it.hasNext(), "round " + round);
            }
        }
    }
}
