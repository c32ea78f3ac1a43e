package dev.moroutine.serve;

import dev.moroutine.Task;

/**
 * What a {@link Server} runs for each request: the moroutine task that answers it. The server runs
 * that task on the worker of the request's connection ({@link dev.moroutine.Moroutine#assign}), so a
 * task-arg among its arguments (a database connection opened by another moroutine, say) is resolved
 * once per worker and then used by every request of every connection on that worker, one request
 * at a time, with no locking:
 *
 * <pre>{@code
 * public static final Mo0<Connection> openDb = mo(() -> DriverManager.getConnection("jdbc:sqlite:app.db"));
 * public static final Mo2<Connection, Request, Response> lookup = mo((db, request) -> …);
 *
 * Server.start(request -> lookup.call(openDb.call(), request), options);
 * }</pre>
 *
 * <p>A handler is called on one of the server's I/O threads, which read and write every
 * connection: it should only make the task (a moroutine's {@code call(…)}), never do the work
 * itself. If it throws, or the task fails, the client gets a 500 and the failure is logged.
 */
@FunctionalInterface
public interface Handler {

    /**
     * Makes the task that answers a request.
     *
     * @param request the request, with its whole body
     * @return a task of a moroutine that returns the response
     */
    Task<Response> task(Request request);
}
