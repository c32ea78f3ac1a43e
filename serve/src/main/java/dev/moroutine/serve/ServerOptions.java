package dev.moroutine.serve;

import dev.moroutine.PoolOptions;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Settings of a {@link Server}. Immutable: each {@code with…} method returns a copy.
 *
 * <pre>{@code
 * var options = ServerOptions.defaults()
 *         .withPort(8080)
 *         .withWorkers(4)
 *         .withMaxBodySize(64 * 1024)
 *         .withDrainTimeout(Duration.ofSeconds(5));
 * }</pre>
 */
public final class ServerOptions {

    private final int port;
    private final InetAddress address;
    private final int workers;
    private final PoolOptions poolOptions;
    private final int ioThreads;
    private final ConnectionBalancer balancer;
    private final int maxRequestLineLength;
    private final int maxHeaderSize;
    private final int maxHeaderCount;
    private final int maxBodySize;
    private final Duration headerTimeout;
    private final Duration bodyTimeout;
    private final Duration idleTimeout;
    private final Duration drainTimeout;

    /** The settings while a copy is being made; only {@link #with} sees one. */
    private static final class Fields {
        int port;
        InetAddress address;
        int workers;
        PoolOptions poolOptions;
        int ioThreads;
        ConnectionBalancer balancer;
        int maxRequestLineLength;
        int maxHeaderSize;
        int maxHeaderCount;
        int maxBodySize;
        Duration headerTimeout;
        Duration bodyTimeout;
        Duration idleTimeout;
        Duration drainTimeout;
    }

    private ServerOptions(Fields f) {
        port = f.port;
        address = f.address;
        workers = f.workers;
        poolOptions = f.poolOptions;
        ioThreads = f.ioThreads;
        balancer = f.balancer;
        maxRequestLineLength = f.maxRequestLineLength;
        maxHeaderSize = f.maxHeaderSize;
        maxHeaderCount = f.maxHeaderCount;
        maxBodySize = f.maxBodySize;
        headerTimeout = f.headerTimeout;
        bodyTimeout = f.bodyTimeout;
        idleTimeout = f.idleTimeout;
        drainTimeout = f.drainTimeout;
    }

    private ServerOptions with(Consumer<Fields> change) {
        Fields f = new Fields();
        f.port = port;
        f.address = address;
        f.workers = workers;
        f.poolOptions = poolOptions;
        f.ioThreads = ioThreads;
        f.balancer = balancer;
        f.maxRequestLineLength = maxRequestLineLength;
        f.maxHeaderSize = maxHeaderSize;
        f.maxHeaderCount = maxHeaderCount;
        f.maxBodySize = maxBodySize;
        f.headerTimeout = headerTimeout;
        f.bodyTimeout = bodyTimeout;
        f.idleTimeout = idleTimeout;
        f.drainTimeout = drainTimeout;
        change.accept(f);
        return new ServerOptions(f);
    }

    /**
     * The defaults: any free port on the loopback address; one worker per processor, in a pool with
     * {@link PoolOptions#defaults()} and thread names {@code moroutine-serve-worker-<index>}; one I/O
     * thread; {@link ConnectionBalancer#leastConnections()}; a request line of at most 4 KiB (414
     * beyond), headers of at most 8 KiB and 100 fields (431 beyond), a body of at most 1 MiB (413
     * beyond); 10 seconds to send a request's headers and 30 to send its body, 60 seconds of keep-alive idleness, and 30
     * seconds for {@link Server#close()} to drain.
     *
     * @return default options
     */
    public static ServerOptions defaults() {
        Fields f = new Fields();
        f.port = 0;
        f.address = InetAddress.getLoopbackAddress();
        f.workers = Runtime.getRuntime().availableProcessors();
        f.poolOptions = PoolOptions.defaults().withThreadNamePrefix("moroutine-serve");
        f.ioThreads = 1;
        f.balancer = ConnectionBalancer.leastConnections();
        f.maxRequestLineLength = 4096;
        f.maxHeaderSize = 8192;
        f.maxHeaderCount = 100;
        f.maxBodySize = 1 << 20;
        f.headerTimeout = Duration.ofSeconds(10);
        f.bodyTimeout = Duration.ofSeconds(30);
        f.idleTimeout = Duration.ofSeconds(60);
        f.drainTimeout = Duration.ofSeconds(30);
        return new ServerOptions(f);
    }

    /**
     * Listens on this port.
     *
     * @param port the port, or 0 for any free one ({@link Server#port()} tells which)
     * @return a copy with the port
     * @throws IllegalArgumentException if {@code port} is not in 0 to 65535
     */
    public ServerOptions withPort(int port) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port " + port + " is not in 0 to 65535; use 0 for any free port");
        }
        return with(f -> f.port = port);
    }

    /**
     * Listens on this address instead of the loopback one.
     *
     * @param address the local address, such as {@code InetAddress.getByName("0.0.0.0")} for every interface
     * @return a copy with the address
     * @throws NullPointerException if {@code address} is null
     */
    public ServerOptions withAddress(InetAddress address) {
        Objects.requireNonNull(address, "address");
        return with(f -> f.address = address);
    }

    /**
     * Runs handlers on a pool of this many workers.
     *
     * @param workers the pool's size
     * @return a copy with the size
     * @throws IllegalArgumentException if {@code workers} is less than 1
     */
    public ServerOptions withWorkers(int workers) {
        return with(f -> f.workers = positive(workers, "workers"));
    }

    /**
     * Makes the server's pool with these options: thread names, a task timeout (a handler that runs
     * over it is interrupted and its client gets a 500), and so on. The pool's balancer is not used:
     * every request runs on its connection's worker.
     *
     * @param options the pool's options
     * @return a copy with the pool options
     * @throws NullPointerException if {@code options} is null
     */
    public ServerOptions withPoolOptions(PoolOptions options) {
        Objects.requireNonNull(options, "options");
        return with(f -> f.poolOptions = options);
    }

    /**
     * Reads and writes connections with this many I/O threads; they parse HTTP and never run handlers.
     *
     * @param threads the I/O thread count
     * @return a copy with the count
     * @throws IllegalArgumentException if {@code threads} is less than 1
     */
    public ServerOptions withIoThreads(int threads) {
        return with(f -> f.ioThreads = positive(threads, "I/O threads"));
    }

    /**
     * Gives each new connection to the worker this balancer picks.
     *
     * @param balancer the balancer
     * @return a copy with the balancer
     * @throws NullPointerException if {@code balancer} is null
     */
    public ServerOptions withBalancer(ConnectionBalancer balancer) {
        Objects.requireNonNull(balancer, "balancer");
        return with(f -> f.balancer = balancer);
    }

    /**
     * Answers a longer request line (method, target and version) with 414 and closes the connection.
     *
     * @param bytes the longest request line accepted
     * @return a copy with the limit
     * @throws IllegalArgumentException if {@code bytes} is less than 1
     */
    public ServerOptions withMaxRequestLineLength(int bytes) {
        return with(f -> f.maxRequestLineLength = positive(bytes, "request line length"));
    }

    /**
     * Answers requests whose header fields take more bytes with 431 and closes the connection.
     *
     * @param bytes the most bytes of header fields accepted
     * @return a copy with the limit
     * @throws IllegalArgumentException if {@code bytes} is less than 1
     */
    public ServerOptions withMaxHeaderSize(int bytes) {
        return with(f -> f.maxHeaderSize = positive(bytes, "header size"));
    }

    /**
     * Answers requests with more header fields with 431 and closes the connection.
     *
     * @param fields the most header fields accepted
     * @return a copy with the limit
     * @throws IllegalArgumentException if {@code fields} is less than 1
     */
    public ServerOptions withMaxHeaderCount(int fields) {
        return with(f -> f.maxHeaderCount = positive(fields, "header count"));
    }

    /**
     * Answers requests with a longer body with 413 and closes the connection; a request that
     * announces a longer {@code Content-Length} is answered before its body is read.
     *
     * @param bytes the longest body accepted
     * @return a copy with the limit
     * @throws IllegalArgumentException if {@code bytes} is negative
     */
    public ServerOptions withMaxBodySize(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("body size limit " + bytes + " is negative; use 0 to accept no body");
        }
        return with(f -> f.maxBodySize = bytes);
    }

    /**
     * How long a client has to send a request's line and header fields, from its first byte (or,
     * for a connection's first request, from the connection): a client that dribbles them slower
     * (slowloris) gets a 408 and its connection closed, without holding a worker.
     *
     * @param timeout the deadline
     * @return a copy with the timeout
     * @throws IllegalArgumentException if {@code timeout} is not positive
     * @throws NullPointerException if {@code timeout} is null
     */
    public ServerOptions withHeaderTimeout(Duration timeout) {
        return with(f -> f.headerTimeout = positive(timeout, "header timeout"));
    }

    /**
     * The deadline for a request's body, from the end of its header section (or from the
     * {@code 100 Continue} that asks for it): a client that sends it slower, even if it never falls
     * silent for the idle timeout, gets a 408 and its connection closed, after the answers it is
     * owed for earlier requests; the other connections are served meanwhile. While the server
     * itself has stopped reading the connection (16 requests unanswered), the deadline waits.
     *
     * @param timeout the deadline
     * @return a copy with the timeout
     * @throws IllegalArgumentException if {@code timeout} is not positive
     * @throws NullPointerException if {@code timeout} is null
     */
    public ServerOptions withBodyTimeout(Duration timeout) {
        return with(f -> f.bodyTimeout = positive(timeout, "body timeout"));
    }

    /**
     * How long a connection may stay silent while the server owes it no response (between
     * keep-alive requests, or within a request's body) before it is closed.
     *
     * @param timeout the idle timeout
     * @return a copy with the timeout
     * @throws IllegalArgumentException if {@code timeout} is not positive
     * @throws NullPointerException if {@code timeout} is null
     */
    public ServerOptions withIdleTimeout(Duration timeout) {
        return with(f -> f.idleTimeout = positive(timeout, "idle timeout"));
    }

    /**
     * How long {@link Server#close()} lets in-flight requests finish before it closes the remaining
     * connections and interrupts their handlers.
     *
     * @param timeout the drain timeout; zero closes at once
     * @return a copy with the timeout
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws NullPointerException if {@code timeout} is null
     */
    public ServerOptions withDrainTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("drain timeout " + timeout + " is negative; use Duration.ZERO to close at once");
        }
        return with(f -> f.drainTimeout = timeout);
    }

    /**
     * The port to listen on.
     *
     * @return the port, 0 for any free one
     */
    public int port() {
        return port;
    }

    /**
     * The address to listen on.
     *
     * @return the local address
     */
    public InetAddress address() {
        return address;
    }

    /**
     * The pool's size.
     *
     * @return the worker count
     */
    public int workers() {
        return workers;
    }

    /**
     * The options of the server's pool.
     *
     * @return the pool options
     */
    public PoolOptions poolOptions() {
        return poolOptions;
    }

    /**
     * The I/O thread count.
     *
     * @return the count
     */
    public int ioThreads() {
        return ioThreads;
    }

    /**
     * The connection balancer.
     *
     * @return the balancer
     */
    public ConnectionBalancer balancer() {
        return balancer;
    }

    /**
     * The longest request line accepted.
     *
     * @return bytes
     */
    public int maxRequestLineLength() {
        return maxRequestLineLength;
    }

    /**
     * The most bytes of header fields accepted.
     *
     * @return bytes
     */
    public int maxHeaderSize() {
        return maxHeaderSize;
    }

    /**
     * The most header fields accepted.
     *
     * @return fields
     */
    public int maxHeaderCount() {
        return maxHeaderCount;
    }

    /**
     * The longest body accepted.
     *
     * @return bytes
     */
    public int maxBodySize() {
        return maxBodySize;
    }

    /**
     * The deadline for a request's line and header fields.
     *
     * @return the timeout
     */
    public Duration headerTimeout() {
        return headerTimeout;
    }

    /**
     * The deadline for a request's body.
     *
     * @return the timeout
     */
    public Duration bodyTimeout() {
        return bodyTimeout;
    }

    /**
     * The idle timeout.
     *
     * @return the timeout
     */
    public Duration idleTimeout() {
        return idleTimeout;
    }

    /**
     * How long {@link Server#close()} drains.
     *
     * @return the timeout
     */
    public Duration drainTimeout() {
        return drainTimeout;
    }

    private static int positive(int value, String what) {
        if (value < 1) {
            throw new IllegalArgumentException(what + " must be at least 1, was " + value);
        }
        return value;
    }

    private static Duration positive(Duration value, String what) {
        Objects.requireNonNull(value, what);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, was " + value);
        }
        return value;
    }

    @Override
    public String toString() {
        return "ServerOptions[port=" + port + ", address=" + address.getHostAddress() + ", workers=" + workers + ", ioThreads="
                + ioThreads + ", maxRequestLineLength=" + maxRequestLineLength + ", maxHeaderSize=" + maxHeaderSize
                + ", maxHeaderCount=" + maxHeaderCount + ", maxBodySize=" + maxBodySize + ", headerTimeout=" + headerTimeout
                + ", bodyTimeout=" + bodyTimeout + ", idleTimeout=" + idleTimeout + ", drainTimeout=" + drainTimeout + "]";
    }
}
