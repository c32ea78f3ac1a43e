package dev.moroutine.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import dev.moroutine.Pool;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The answers to a pool's invocations are handled on threads that are kept, not on threads started
 * for each: Hazelcast's executor for callbacks starts one per callback wherever the common pool has
 * one thread (2 cores or fewer), and an answer handled there cost two thread starts from a member,
 * three from a client. Hazelcast's own one per answer remains there (it completes the future that
 * {@code submitToMember} returns with that executor); none with a common pool of 2 threads or more.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AnswerThreadsTest {

    private static final int TASKS = 1_000;
    /** Hazelcast's own thread start per answer, where its executor for callbacks starts one per callback. */
    private static final int HAZELCASTS_OWN = ForkJoinPool.getCommonPoolParallelism() > 1 ? 0 : TASKS;
    /** Far fewer than {@link #TASKS}: what Hazelcast and the pool may start besides. */
    private static final int OTHERS = 50;

    private static Members members;
    private static HazelcastInstance member;
    private static HazelcastInstance client;

    @BeforeAll
    static void startMembersAndClient() {
        members = new Members("answer-threads-test");
        List<HazelcastInstance> two = members.start(2);
        member = two.get(0);
        client = members.client();
    }

    @AfterAll
    static void stopThem() {
        members.close();
    }

    @Test
    void aMembersTasksOneAtATimeStartNoThreadEach() {
        assertFewThreadsStartedFor(member);
    }

    @Test
    void aClientsTasksOneAtATimeStartNoThreadEach() {
        assertFewThreadsStartedFor(client);
    }

    private static void assertFewThreadsStartedFor(HazelcastInstance caller) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (Pool pool = Cluster.workers(caller)) {
            pool.run(Jobs.square.call(1)); // the pool's own start-up is not counted
            long before = threads.getTotalStartedThreadCount();
            for (int i = 0; i < TASKS; i++) { // one at a time: each task is a batch of its own, with an answer of its own
                assertEquals(i * i, pool.run(Jobs.square.call(i)));
            }
            long started = threads.getTotalStartedThreadCount() - before;
            assertTrue(started <= HAZELCASTS_OWN + OTHERS, started + " threads were started for " + TASKS
                    + " tasks run one at a time, " + HAZELCASTS_OWN + " of them by Hazelcast to complete its futures");
        }
    }
}
