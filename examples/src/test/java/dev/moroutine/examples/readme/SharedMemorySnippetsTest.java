package dev.moroutine.examples.readme;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.examples.readme.SharedJobs.countHits;
import static dev.moroutine.examples.sharedstate.Positions.move;
import static dev.moroutine.shared.Shared.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.moroutine.Pool;
import dev.moroutine.examples.sharedstate.Positions.Position;
import dev.moroutine.shared.Guard;
import dev.moroutine.shared.Int32;
import dev.moroutine.shared.Int32Atomic;
import dev.moroutine.shared.Int64Atomic;
import dev.moroutine.shared.MaxBytes;
import dev.moroutine.shared.Mutex;
import dev.moroutine.shared.RwLock;
import dev.moroutine.shared.Str;
import dev.moroutine.shared.Struct;
import dev.moroutine.shared.Tuple;
import dev.moroutine.shared.WaitResult;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Runs the README's shared-memory snippets ({@link ReadmeTest} checks they are regions of this file). */
@Timeout(60)
class SharedMemorySnippetsTest {

    record Point(int x, int y) {}

    record User(int id, @MaxBytes(32) String name, Point home) {}

    record Holder(int id, List<Object> pair) {}

    @Test
    void atomicCounter() {
        Int32Atomic hits = shared(int32Atomic);
        try (Pool pool = workers(4)) {
            pool.runAll(List.of(countHits.call(hits, 1000), countHits.call(hits, 1000)));
        }
        int total = hits.load(); // 2000: both workers added to the same memory
        assertEquals(2000, total);
    }

    @Test
    void structsTuplesStrings() {
        Struct<Point> p = shared(new Point(10, 20));
        p.field("x", Int32.class).store(11);
        Point now = p.load();                          // Point[x=11, y=20]
        assertEquals(new Point(11, 20), now);

        Struct<User> user = shared(new User(1, "Ada", new Point(3, 4))); // nested records nest
        assertEquals("Ada", user.load().name());

        Tuple pair = shared(tuple(int32, bool));
        pair.store(List.of(42, true));
        List<Object> values = pair.load();             // [42, true]
        assertEquals(List.of(42, true), values);

        Struct<Holder> holder = shared(struct(Holder.class).with("pair", tuple(int32, bool)));
        assertEquals(new Holder(0, List.of(0, false)), holder.load());

        Str name = shared(string(8));
        name.store("héllo");                           // 6 UTF-8 bytes: fits
        assertEquals("héllo", name.load());
        assertThrows(IllegalArgumentException.class,
                () -> name.store("hello, world")); // 12 bytes: IllegalArgumentException
    }

    @Test
    void mutexProtectedStruct() {
        Mutex mu = shared(mutex);
        Struct<Position> pos = shared(new Position(0, 0));
        try (Pool pool = workers(4)) {
            pool.runAll(List.of(move.call(mu, pos, 1, 0), move.call(mu, pos, 0, 1)));
        }
        Position end = pos.load();                     // Position[x=1, y=1]
        assertEquals(new Position(1, 1), end);
    }

    @Test
    void tryLockAndRwLock() {
        Mutex mu = shared(mutex);
        try (Guard g = mu.tryLock()) {
            if (g == null) return;                     // held elsewhere: no guard
            // exclusive access
            assertTrue(mu.isLocked());
        }
        RwLock rw = shared(rwLock);
        try (var _ = rw.readLock()) {
            // shared with other readers; a waiting writer holds new readers back
            assertNull(rw.tryWriteLock());
        }
    }

    @Test
    void waitAndWake() {
        Int32Atomic ready = shared(int32Atomic);
        CompletableFuture<WaitResult> woken = ready.waitAsync(0); // no thread waits
        ready.store(1);
        ready.wake();                                             // woken completes with OK
        assertEquals(WaitResult.OK, woken.join());
    }

    @Test
    void explicitArena() {
        try (Arena arena = Arena.ofShared()) {
            Int64Atomic bytesRead = shared(arena, int64Atomic);
            bytesRead.add(4096);
            assertEquals(4096, bytesRead.load());
        } // freed here, not when the garbage collector gets to it
    }
}
