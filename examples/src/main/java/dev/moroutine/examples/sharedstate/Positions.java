package dev.moroutine.examples.sharedstate;

import static dev.moroutine.Moroutine.*;

import dev.moroutine.Mo4;
import dev.moroutine.shared.Mutex;
import dev.moroutine.shared.Struct;

/** A position in shared memory, and a moroutine that moves it under a mutex. */
public final class Positions {

    private Positions() {}

    /**
     * A position; its struct in shared memory is two {@code int32}s.
     *
     * @param x across
     * @param y down
     */
    public record Position(int x, int y) {}

    /** Moves {@code pos} by (dx, dy): a read-modify-write of both fields, under {@code mu}. */
    public static final Mo4<Mutex, Struct<Position>, Integer, Integer, Position> move = mo((mu, pos, dx, dy) -> {
        try (var _ = mu.lock()) {
            Position p = pos.load();
            Position next = new Position(p.x() + dx, p.y() + dy);
            pos.store(next);
            return next;
        }
    });
}
