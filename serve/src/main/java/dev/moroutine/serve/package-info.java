/**
 * An HTTP/1.1 server on moroutine workers. {@link dev.moroutine.serve.Server#start} listens on a
 * port; each accepted connection is given to one worker of the server's pool, picked by a
 * {@link dev.moroutine.serve.ConnectionBalancer} (least connections by default), and every request
 * of that connection runs there, one at a time and in order, as a moroutine task:
 *
 * <pre>{@code
 * public static final Mo1<Request, Response> hello = mo(request -> Response.text("hello " + request.path()));
 *
 * try (Server server = Server.start(hello, ServerOptions.defaults().withWorkers(4))) {
 *     System.out.println("listening on port " + server.port());
 *     …
 * } // close(): stops accepting, lets in-flight requests finish, then closes the pool
 * }</pre>
 */
package dev.moroutine.serve;
