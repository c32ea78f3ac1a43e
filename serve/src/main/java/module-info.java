/**
 * moroutine serve: an HTTP/1.1 server whose connections are balanced over a pool of moroutine
 * workers. Every request of a connection runs on that connection's worker, so a handler may use
 * the worker's task-args (a database connection, say) without locking. HTTP is parsed and written
 * by Netty's HTTP/1.1 codec; Netty's I/O threads read and write, the pool's workers run handlers.
 *
 * <p>Exported: {@code dev.moroutine.serve}.
 */
module dev.moroutine.serve {
    requires transitive dev.moroutine;
    requires io.netty.buffer;
    requires io.netty.codec;
    requires io.netty.codec.http;
    requires io.netty.common;
    requires io.netty.handler;
    requires io.netty.transport;

    exports dev.moroutine.serve;
}
