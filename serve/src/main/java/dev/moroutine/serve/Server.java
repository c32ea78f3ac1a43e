package dev.moroutine.serve;

import static dev.moroutine.Moroutine.assign;

import dev.moroutine.Mo1;
import dev.moroutine.Moroutine;
import dev.moroutine.Pool;
import dev.moroutine.Task;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * An HTTP/1.1 server whose connections are balanced over a pool of moroutine workers. Each new
 * connection is given to one worker, picked by the {@link ConnectionBalancer} from the
 * {@link #threads()}; every request of that connection then runs on that worker as a moroutine
 * task, one at a time and in order, so a handler may use the worker's task-args (a database
 * connection, say) with no locking. The server owns its pool: it makes it at start and closes it
 * at close, closing the task-arg values on their workers.
 *
 * <pre>{@code
 * public static final Mo1<Request, Response> hello = mo(request -> Response.text("hello"));
 *
 * try (Server server = Server.start(hello, ServerOptions.defaults().withWorkers(4))) {
 *     URI uri = URI.create("http://localhost:" + server.port() + "/");
 *     …
 * }
 * }</pre>
 *
 * <h2>Threads</h2>
 * Netty's I/O threads ({@link ServerOptions#withIoThreads}) accept connections, parse requests
 * with Netty's HTTP/1.1 codec, enforce the limits and deadlines, and write responses; the pool's
 * workers run the handlers' tasks. A handler that blocks (a slow query) delays the other
 * connections of its worker, never the I/O: the other workers' connections, the deadlines and
 * {@link #close()} go on. All threads are daemon threads: the server does not keep the JVM alive.
 *
 * <h2>HTTP</h2>
 * Keep-alive and pipelining (answers in request order), chunked request and response bodies,
 * {@code Expect: 100-continue}, {@code Connection: close}, {@code HEAD} (the handler's answer
 * without its body), a {@code Date} on every answer, and half-close (a client that shuts its
 * output after its requests still gets their answers, then the connection closes). A request
 * is refused, and its connection closed after the answer, with 414
 * (request line too long), 431 (header section too large or with too many fields), 413 (body
 * over the limit, announced or sent), 400 (malformed; and every request-smuggling shape: both
 * {@code Content-Length} and {@code Transfer-Encoding}, several {@code Content-Length} values,
 * obsolete line folding, a bad chunk size; an {@code HTTP/1.1} request without one {@code Host}),
 * 501 (a transfer coding other than {@code chunked}), 417 (an expectation other than
 * {@code 100-continue}) or 505 (a version other than 1.0 and 1.1). A client that does not send a
 * request's header section within the {@linkplain ServerOptions#withHeaderTimeout header timeout}
 * gets a 408, and so does one that does not send a request's body within the
 * {@linkplain ServerOptions#withBodyTimeout body timeout}; a connection silent for the
 * {@linkplain ServerOptions#withIdleTimeout idle timeout}
 * while the server owes it nothing is closed. A handler that throws, or whose task fails or times
 * out, gets its client a 500 with no detail, and the failure is logged (logger
 * {@code dev.moroutine.serve.Server}, level {@code WARNING}); its worker goes on.
 *
 * <h2>Shutdown</h2>
 * <pre>
 * OPEN ──close()──► CLOSING: no new connections; idle ones closed; the others answer the requests
 *   │                        they have read whole (the last answer says Connection: close) and close
 *   │                  ├──all closed, no handler running──► pool closed (task-args closed) ──► CLOSED
 *   │                  └──drain timeout──► connections closed, handlers interrupted, pool terminated ──► CLOSED
 *   └──terminate()──► CLOSED at once (as after the drain timeout), without waiting
 * </pre>
 *
 * <p>All methods are thread-safe. Do not close a server from one of its own handlers: the drain
 * would wait for that handler (on an I/O thread, where a {@link Handler} makes its task,
 * {@code close()} throws).
 */
public final class Server implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Server.class.getName());
    /** How long a cut waits for connections to close and I/O threads to end. */
    private static final Duration CUT_GRACE = Duration.ofSeconds(1);

    private static final int OPEN = 0;
    private static final int CLOSING = 1;
    private static final int CLOSED = 2;

    private final Handler handler;
    private final ServerOptions options;
    private final Pool pool;
    private final List<ServerThread> threads;
    private final EventLoopGroup io;
    private final Channel listener;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    /** One of each per I/O thread: see {@link Inbox} and {@link Outbox}. */
    private final Map<EventExecutor, Inbox> inboxes = new ConcurrentHashMap<>();
    private final Map<EventExecutor, Outbox> outboxes = new ConcurrentHashMap<>();
    /** Tasks submitted whose futures have not completed. */
    private final AtomicInteger running = new AtomicInteger();
    /** Completes once closing, with no connection open and no task running. */
    private final CompletableFuture<Void> drained = new CompletableFuture<>();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private final AtomicInteger state = new AtomicInteger(OPEN);
    private volatile boolean closing;

    private Server(Handler handler, ServerOptions options) {
        this.handler = handler;
        this.options = options;
        this.pool = Moroutine.workers(options.workers(), options.poolOptions());
        this.threads = pool.workers().stream().map(ServerThread::new).toList();
        this.io = new MultiThreadIoEventLoopGroup(options.ioThreads(), new DefaultThreadFactory("moroutine-serve-io", true),
                NioIoHandler.newFactory());
        try {
            this.listener = new ServerBootstrap()
                    .group(io)
                    .channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    // A client that shuts its output after its requests still reads the answers: see Connection.
                    .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel channel) {
                            accept(channel);
                        }
                    })
                    .bind(options.address(), options.port())
                    .syncUninterruptibly()
                    .channel();
        } catch (Exception cannotListen) { // syncUninterruptibly() rethrows the bind's checked exception as is
            pool.terminate();
            io.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            String where = options.address().getHostAddress() + ":" + options.port();
            String message = "could not listen on " + where + " (" + cannotListen.getMessage()
                    + "); choose another port, or 0 for any free one";
            if (cannotListen instanceof IOException ioFailure) {
                throw new UncheckedIOException(message, ioFailure);
            }
            throw new IllegalStateException(message, cannotListen);
        }
    }

    /**
     * Starts a server whose handler is a moroutine from request to response.
     *
     * @param handler the moroutine that answers each request, on the worker of its connection
     * @param options the settings
     * @return the running server
     * @throws UncheckedIOException if it cannot listen on the address and port (the port is taken, say)
     * @throws NullPointerException if an argument is null
     */
    public static Server start(Mo1<Request, Response> handler, ServerOptions options) {
        Objects.requireNonNull(handler, "handler");
        return start(handler::call, options);
    }

    /**
     * Starts a server whose handler makes a moroutine task for each request, so that the task may
     * take more arguments than the request, task-args among them ({@link Handler} shows one).
     *
     * @param handler makes the task that answers each request; it runs on the worker of the request's connection
     * @param options the settings
     * @return the running server
     * @throws UncheckedIOException if it cannot listen on the address and port (the port is taken, say)
     * @throws NullPointerException if an argument is null
     */
    public static Server start(Handler handler, ServerOptions options) {
        return new Server(Objects.requireNonNull(handler, "handler"), Objects.requireNonNull(options, "options"));
    }

    /** On the new connection's I/O thread: gives it to a worker and sets up its pipeline. */
    private void accept(SocketChannel channel) {
        ServerThread thread;
        try {
            thread = options.balancer().select(threads);
        } catch (RuntimeException failed) {
            LOG.log(System.Logger.Level.WARNING, "the connection balancer failed, so a connection from "
                    + channel.remoteAddress() + " was closed", failed);
            channel.close();
            return;
        }
        int index = thread == null ? -1 : thread.worker().index();
        if (index < 0 || index >= threads.size() || threads.get(index) != thread) {
            LOG.log(System.Logger.Level.WARNING, "the connection balancer returned " + thread + ", which is not one of the"
                    + " server's threads, so a connection from " + channel.remoteAddress() + " was closed; return one of"
                    + " the threads it is given");
            channel.close();
            return;
        }
        Connection connection = new Connection(this, thread, options);
        channel.pipeline().addLast(
                new IdleStateHandler(options.idleTimeout().toNanos(), 0, 0, TimeUnit.NANOSECONDS),
                connection.decoder(),
                new HttpResponseEncoder(),
                connection);
        thread.opened();
        connections.add(connection);
        channel.closeFuture().addListener(closed -> {
            thread.closed();
            connections.remove(connection);
            checkDrained();
        });
        // close() sets closing, then drains the connections it finds: one added after that is closed here.
        if (closing) {
            channel.eventLoop().execute(connection::drain);
        }
    }

    /**
     * Makes a request's task and sends it to the worker of its connection, which {@code inbox} wakes at
     * the end of its run; called on the connection's I/O thread, in that run. {@code then} gets the
     * task's outcome where it completes, before the task stops counting as running (one callback,
     * not one each).
     */
    CompletableFuture<Response> submit(ServerThread thread, Request request, Inbox inbox, BiConsumer<Response, Throwable> then) {
        Task<Response> task = handler.task(request);
        if (task == null) {
            throw new NullPointerException("the handler returned no task for " + request
                    + "; return a moroutine's call(…), such as handle.call(request)");
        }
        CompletableFuture<Response> future = inbox.submit(() -> pool.submit(assign(thread.worker(), task)));
        running.incrementAndGet();
        future.whenComplete((response, failure) -> {
            try {
                then.accept(response, failure);
            } finally {
                running.decrementAndGet();
                checkDrained();
            }
        });
        return future;
    }

    /** The inbox of an I/O thread, through which its connections hand their requests to the workers. */
    Inbox inbox(EventExecutor loop) {
        return inboxes.computeIfAbsent(loop, Inbox::new);
    }

    /** The outbox of an I/O thread, through which workers hand its connections their answers. */
    Outbox outbox(EventExecutor loop) {
        return outboxes.computeIfAbsent(loop, Outbox::new);
    }

    private void checkDrained() {
        if (closing && connections.isEmpty() && running.get() == 0) {
            drained.complete(null);
        }
    }

    /**
     * The port the server listens on: the one asked for, or the one picked for port 0.
     *
     * @return the port
     */
    public int port() {
        return address().getPort();
    }

    /**
     * The address the server listens on.
     *
     * @return the local address and port
     */
    public InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    /**
     * The server's threads, one per worker of its pool, in worker index order, with their live
     * connection and request counts.
     *
     * @return an unmodifiable list, the same for the server's lifetime
     */
    public List<ServerThread> threads() {
        return threads;
    }

    /**
     * Whether {@link #close()} or {@link #terminate()} has begun.
     *
     * @return {@code true} once the server accepts no connections
     */
    public boolean isClosed() {
        return state.get() != OPEN;
    }

    /** Whether close() or terminate() has begun: a connection that answers from now on ends with that answer. */
    boolean closing() {
        return closing;
    }

    /**
     * Graceful shutdown (see the class comment): stops accepting, closes idle connections, lets the
     * requests already read finish (each connection's last answer says {@code Connection: close}),
     * then closes the pool, which closes the workers' task-arg values. Past the
     * {@linkplain ServerOptions#withDrainTimeout drain timeout}, or if the calling thread is
     * interrupted, it closes the remaining connections, interrupts their handlers and terminates
     * the pool instead (the interrupt status is kept). Blocks until done; a second call waits
     * with the first, and returns at once after {@link #terminate()}.
     *
     * @throws IllegalStateException if called on one of the server's I/O threads (by a {@link Handler}
     *     making its task, say), whose connections the drain would wait for while it blocks them
     */
    @Override
    public void close() {
        for (EventExecutor loop : io) {
            if (loop.inEventLoop()) {
                throw new IllegalStateException("close() was called on one of the server's I/O threads (by a Handler,"
                        + " say), where it would wait for itself; call it from another thread, or call terminate()");
            }
        }
        if (!state.compareAndSet(OPEN, CLOSING)) {
            stopped.join();
            return;
        }
        boolean interrupted = false;
        closing = true;
        listener.close().syncUninterruptibly();
        for (Connection connection : connections) {
            connection.executor().execute(connection::drain);
        }
        checkDrained();
        boolean clean;
        try {
            drained.get(options.drainTimeout().toNanos(), TimeUnit.NANOSECONDS);
            clean = true;
        } catch (TimeoutException late) {
            clean = false;
        } catch (InterruptedException stop) {
            clean = false;
            interrupted = true;
        } catch (ExecutionException impossible) { // drained only ever completes normally
            throw new IllegalStateException(impossible);
        }
        if (clean) {
            pool.close();
        } else {
            LOG.log(System.Logger.Level.WARNING, () -> connections.size() + " connections still open and " + running.get()
                    + " requests running after the drain timeout of " + options.drainTimeout() + "; closing them");
            cutAll();
            try {
                drained.get(CUT_GRACE.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException | InterruptedException notYet) {
                interrupted |= notYet instanceof InterruptedException;
            }
        }
        io.shutdownGracefully(0, CUT_GRACE.toNanos(), TimeUnit.NANOSECONDS).awaitUninterruptibly(2 * CUT_GRACE.toMillis());
        state.set(CLOSED);
        stopped.complete(null);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Immediate shutdown: stops accepting, closes every connection, interrupts running handlers
     * and terminates the pool, without waiting for any of it.
     */
    public void terminate() {
        if (state.getAndSet(CLOSED) == CLOSED) {
            return;
        }
        closing = true;
        listener.close();
        cutAll();
        io.shutdownGracefully(0, 0, TimeUnit.NANOSECONDS);
        stopped.complete(null);
    }

    private void cutAll() {
        for (Connection connection : connections) {
            connection.executor().execute(connection::cut);
        }
        pool.terminate();
    }

    @Override
    public String toString() {
        return "Server on " + address() + " with " + threads.size() + " workers" + (isClosed() ? " (closed)" : "");
    }
}
