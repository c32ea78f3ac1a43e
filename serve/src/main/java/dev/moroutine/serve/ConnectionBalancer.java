package dev.moroutine.serve;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Picks the worker that takes a new connection; every request of that connection then runs there.
 * The default is {@link #leastConnections()}.
 *
 * <p>A balancer is called on the server's I/O threads, possibly by several at once: it must be
 * thread-safe, quick, and must not block. A balancer that throws, or returns something else than
 * one of the given threads, gets the connection closed and the mistake logged.
 */
@FunctionalInterface
public interface ConnectionBalancer {

    /**
     * Picks the thread for a new connection.
     *
     * @param threads the server's threads, one per worker, in worker index order; never empty, never modified
     * @return one of {@code threads}
     */
    ServerThread select(List<ServerThread> threads);

    /**
     * A new least-connections balancer: the thread with the fewest open connections, ties broken
     * by a rotating start, so that connections opened one after the other (each closed before the
     * next) are spread over all workers instead of all landing on worker 0.
     *
     * @return the balancer
     */
    static ConnectionBalancer leastConnections() {
        AtomicInteger offset = new AtomicInteger();
        return threads -> {
            int size = threads.size();
            int start = Math.floorMod(offset.getAndIncrement(), size);
            ServerThread best = null;
            int fewest = Integer.MAX_VALUE;
            for (int i = 0; i < size; i++) {
                ServerThread candidate = threads.get((start + i) % size);
                int open = candidate.connections();
                if (open < fewest) {
                    best = candidate;
                    fewest = open;
                }
            }
            return best;
        };
    }
}
