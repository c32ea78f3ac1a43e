package dev.moroutine.examples.sharedstate;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.examples.Check.check;
import static dev.moroutine.examples.sharedstate.Positions.*;
import static dev.moroutine.shared.Shared.*;

import dev.moroutine.Pool;
import dev.moroutine.Task;
import dev.moroutine.shared.Mutex;
import dev.moroutine.shared.Struct;
import java.util.ArrayList;
import java.util.List;

/**
 * A mutex-protected shared struct: four workers move one position, 2,000 steps right and 2,000
 * steps down, each step a read-modify-write of both fields under a {@code Mutex}. The mutex and
 * the struct are plain moroutine arguments; the workers use the same memory. The end position is
 * exact, and no worker ever saw it half-updated.
 */
public final class SharedStateExample {

    private static final int STEPS = 2_000;

    private SharedStateExample() {}

    /**
     * Moves the position from four workers and prints where it ends.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        Mutex mu = shared(mutex);
        Struct<Position> pos = shared(new Position(0, 0));
        List<Task<Position>> moves = new ArrayList<>();
        for (int i = 0; i < STEPS; i++) {
            moves.add(move.call(mu, pos, 1, 0));
            moves.add(move.call(mu, pos, 0, 1));
        }
        List<Position> after;
        try (Pool pool = workers(4)) {
            after = pool.runAll(moves);
        }
        // Under the mutex each move starts where another ended, so no two moves end at the same place.
        long distinct = after.stream().distinct().count();
        Position end = pos.load();
        System.out.println("moves: " + moves.size() + " on 4 workers, ending at " + distinct + " different positions");
        System.out.println("end:   " + end);
        check(end.equals(new Position(STEPS, STEPS)) && distinct == moves.size(),
                "every move counted, none lost to a race: " + STEPS + " right and " + STEPS + " down");
    }
}
