package dev.moroutine.serve;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP connection: the last handler of its Netty pipeline (after the idle timer, the
 * {@link RequestDecoder} and Netty's response encoder), which turns decoded requests into tasks on
 * the connection's worker and writes their responses back.
 *
 * <h2>Threads</h2>
 * Every field is confined to the connection's Netty event loop. A task completes on the worker,
 * which only hands its result back to the event loop; the server's {@code close()} and
 * {@code terminate()} reach a connection the same way ({@link #drain()}, {@link #cut()}).
 *
 * <h2>Order</h2>
 * Each request becomes an {@link Exchange} in {@code exchanges}, in request order, as soon as its
 * header section is decoded; the tail may still be reading its body ({@code receiving}). A complete
 * request is dispatched at the end of the I/O thread's pass (see {@link Inbox}, one FIFO for the
 * thread's connections), so pipelined requests queue on the worker, which runs them one at a time
 * in that order. Whatever answers an exchange (its task, or the server itself: 413, 400…)
 * only sets its response; {@link #flush()} then writes the answered exchanges at the head of the
 * queue, so responses leave in request order even when the server answers a later one first. A
 * {@code 100 Continue} is written only for the head exchange, so it never overtakes a response
 * owed to an earlier request. Past {@link #MAX_PIPELINED} unanswered exchanges the connection
 * stops reading until some are answered.
 *
 * <h2>Ending</h2>
 * A response that ends the connection (the client asked for it, the request was rejected, or the
 * server drains) is the last one written: {@code ending} stops reading and answering anything
 * after it, and the channel closes once it is written ({@link #closeGently()}). A request that
 * ends the connection sets {@code ending} as soon as it is read whole, so that no request
 * pipelined after it reaches the handler. Rejections (bad
 * framing, limits) always end the connection, as the bytes that follow cannot be trusted. A
 * {@link #drain()} stops reading, drops a request not yet read whole, and makes the answer to the
 * last dispatched request the ending one (or closes at once if none is owed); a {@link #cut()}
 * cancels the connection's tasks, interrupting a running one, and closes. A connection that closes
 * otherwise (the client went away) leaves its tasks to finish unheard: the server counts a task
 * as running until its handler returns, which is what a clean drain waits for.
 *
 * <h2>Half-close</h2>
 * The channel allows half-closure: when the client shuts its output, the requests it sent whole
 * are answered as in a {@link #drain()} and the connection closes after the last answer.
 *
 * <h2>Deadlines</h2>
 * The header deadline runs from a request's first byte (for the first request, from the
 * connection) until its header section is decoded: it is armed after a read that left a head
 * incomplete, so a head that arrives whole costs no timer. While the connection does not read
 * because {@link #MAX_PIPELINED} requests are owed, the rest of a head may wait unread in the
 * socket through no fault of the client: the deadline does not fire then, and restarts when
 * reading resumes. The body deadline runs from the end of a request's header section (or from
 * the {@code 100 Continue} that asks for its body) until its body is read whole; it too is armed
 * only after a read that left a body incomplete, waits while reading is paused or a
 * {@code 100 Continue} is still owed, and answers 408 in the request's turn. The idle timeout (an
 * {@link io.netty.handler.timeout.IdleStateHandler} before the decoder) closes a connection that
 * reads nothing for that long while no task of it is running and no response is being taken by
 * the client (see {@link #outputMoved()}).
 */
final class Connection extends ChannelInboundHandlerAdapter {

    private static final System.Logger LOG = System.getLogger(Server.class.getName());
    /** Requests read ahead of their responses before the connection stops reading. */
    static final int MAX_PIPELINED = 16;
    private static final byte[] NO_BODY = new byte[0];
    /**
     * The header fields of responses, which Netty need not check again: {@link Response} checked the
     * handler's names and values when it was made, and the server's own fields are constants. (A
     * response with a length has no trailer: it gets the empty one, not a map of its own.)
     */
    private static final HttpHeadersFactory CHECKED_FIELDS = DefaultHttpHeadersFactory.headersFactory().withValidation(false);
    /** How long a connection that the server ends goes on reading what the client still sends; see {@link #closeGently()}. */
    private static final Duration LINGER = Duration.ofSeconds(1);

    /** One request and, once known, its response. */
    private static final class Exchange {
        final HttpRequest request;
        final boolean head;
        final boolean http10;
        final boolean keepAlive;
        boolean expectsContinue;
        CompletableFuture<Response> task;
        Response response;
        boolean closeAfter;

        Exchange(HttpRequest request) {
            this.request = request;
            head = "HEAD".equals(request.method().name());
            http10 = request.protocolVersion().equals(HttpVersion.HTTP_1_0);
            keepAlive = HttpUtil.isKeepAlive(request);
        }

        /** For messages only: made when one is logged, not for every request. */
        String name() {
            return request.method() + " " + request.uri();
        }
    }

    /** How far the writing of responses has got; see {@link #outputMoved()}. */
    private record OutputState(int message, long progress, long pending) {}

    private final Server server;
    private final ServerThread thread;
    private final ServerOptions options;
    private final RequestDecoder decoder;
    private final long headerTimeoutNanos;
    private final long bodyTimeoutNanos;
    private final ArrayDeque<Exchange> exchanges = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    /** Where this connection's requests wait for the end of the I/O thread's pass before they go to the worker. */
    private Inbox inbox;
    /** Where this connection's worker hands its answers back to the I/O thread. */
    private Outbox outbox;
    /** The tail exchange while its body is read, and the body so far. */
    private Exchange receiving;
    private CompositeByteBuf body;
    /** Bytes of a request head have arrived (or the connection opened) and the head is not decoded yet. */
    private boolean headPending;
    private long headStarted;
    private ScheduledFuture<?> headTimer;
    /** When the body of {@code receiving} became due (its head's end, or the 100 Continue); see {@link #bodyDeadline()}. */
    private long bodyStarted;
    private ScheduledFuture<?> bodyTimer;
    /** The client shut its output (a half-close): it sends nothing more, and still reads the answers it is owed. */
    private boolean inputShut;
    /** The last answer was written and the output shut; see {@link #closeGently()}. */
    private boolean outputShut;
    private boolean draining;
    private boolean ending;
    private boolean closed;
    /** Where the output stood (message, its progress, bytes pending) at the last idle event; see {@link #outputMoved()}. */
    private OutputState outputSeen;

    Connection(Server server, ServerThread thread, ServerOptions options) {
        this.server = server;
        this.thread = thread;
        this.options = options;
        this.decoder = new RequestDecoder(options, this::bytesRead);
        this.headerTimeoutNanos = options.headerTimeout().toNanos();
        this.bodyTimeoutNanos = options.bodyTimeout().toNanos();
    }

    RequestDecoder decoder() {
        return decoder;
    }

    /** The connection's event loop, where the server's {@link #drain()} and {@link #cut()} must run. */
    EventExecutor executor() {
        return ctx.executor();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.inbox = server.inbox(ctx.executor());
        this.outbox = server.outbox(ctx.executor());
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        headPending = true;
        headStarted = System.nanoTime();
        armHeadTimer();
        ctx.fireChannelActive();
    }

    /** Called by the decoder before it decodes a read. */
    private void bytesRead() {
        if (receiving == null && !headPending) {
            headPending = true;
            headStarted = System.nanoTime();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (headPending && headTimer == null && !ending) {
            armHeadTimer();
        }
        if (receiving != null && bodyTimer == null && !ending) { // a body still to come: a request read whole costs no timer
            armBodyTimer();
        }
        ctx.fireChannelReadComplete();
    }

    private void armHeadTimer() {
        long left = headStarted + headerTimeoutNanos - System.nanoTime();
        headTimer = ctx.executor().schedule(this::headDeadline, Math.max(0, left), TimeUnit.NANOSECONDS);
    }

    private void headDeadline() {
        headTimer = null;
        if (!headPending || ending || closed) {
            return;
        }
        if (!ctx.channel().config().isAutoRead()) {
            return; // paused on MAX_PIPELINED: the rest of the head may wait unread; flush() restarts the deadline
        }
        if (headStarted + headerTimeoutNanos - System.nanoTime() > 0) { // a later head: its own deadline
            armHeadTimer();
            return;
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "closing " + ctx.channel() + ": no request header section within "
                + options.headerTimeout());
        ending = true;
        if (exchanges.isEmpty()) { // nothing owed to the client: tell it why
            write(errorBody(408), false, false, true).addListener(written -> closeGently());
            ctx.flush();
        } else {
            ctx.close();
        }
    }

    private void cancelHeadTimer() {
        headPending = false;
        if (headTimer != null) {
            headTimer.cancel(false);
            headTimer = null;
        }
    }

    private void armBodyTimer() {
        long left = bodyStarted + bodyTimeoutNanos - System.nanoTime();
        bodyTimer = ctx.executor().schedule(this::bodyDeadline, Math.max(0, left), TimeUnit.NANOSECONDS);
    }

    private void cancelBodyTimer() {
        if (bodyTimer != null) {
            bodyTimer.cancel(false);
            bodyTimer = null;
        }
    }

    /**
     * The body of {@code receiving} did not arrive whole within the body timeout: a 408, written
     * after the answers owed for earlier requests, then the connection closes. It does not fire
     * while the server is at fault: reading paused ({@link #MAX_PIPELINED}), or a {@code 100 Continue}
     * that the client may be waiting for not sent yet; the deadline restarts when that ends.
     */
    private void bodyDeadline() {
        bodyTimer = null;
        Exchange exchange = receiving;
        if (exchange == null || ending || closed || exchange.expectsContinue || !ctx.channel().config().isAutoRead()) {
            return; // done, or the server's turn: flush() restarts the deadline
        }
        if (bodyStarted + bodyTimeoutNanos - System.nanoTime() > 0) { // restarted meanwhile
            armBodyTimer();
            return;
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "closing " + ctx.channel() + ": the body of " + exchange.name()
                + " did not arrive within " + options.bodyTimeout());
        reject(exchange, 408);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (!ending && msg instanceof HttpRequest request) {
                head(request);
            }
            if (!ending && msg instanceof HttpContent content) {
                content(content);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void head(HttpRequest request) {
        cancelHeadTimer();
        Exchange exchange = new Exchange(request);
        exchanges.add(exchange);
        int refusal = refusal(request);
        if (refusal != 0) {
            reject(exchange, refusal);
            return;
        }
        exchange.expectsContinue = HttpUtil.is100ContinueExpected(request);
        receiving = exchange;
        bodyStarted = System.nanoTime();
        if (exchanges.size() >= MAX_PIPELINED) {
            ctx.channel().config().setAutoRead(false);
        }
        if (exchange.expectsContinue) {
            flush();
        }
    }

    /** The status that refuses a request from its head alone, or 0 if it may go on. */
    private int refusal(HttpRequest request) {
        DecoderResult result = request.decoderResult();
        if (result.isFailure()) {
            Throwable cause = result.cause();
            LOG.log(System.Logger.Level.DEBUG, () -> "refusing a request on " + ctx.channel() + ": " + cause);
            return cause instanceof TooLongHttpLineException ? 414 : cause instanceof TooLongHttpHeaderException ? 431 : 400;
        }
        HttpVersion version = request.protocolVersion();
        if (version.majorVersion() != 1 || version.minorVersion() > 1) {
            return 505;
        }
        HttpHeaders headers = request.headers();
        if (headers.size() > options.maxHeaderCount()) {
            return 431;
        }
        if (version.equals(HttpVersion.HTTP_1_1) && headers.getAll(HttpHeaderNames.HOST).size() != 1) {
            return 400; // RFC 9112 §3.2: exactly one Host
        }
        List<String> codings = headers.getAll(HttpHeaderNames.TRANSFER_ENCODING);
        if (!codings.isEmpty() && !(codings.size() == 1 && HttpHeaderValues.CHUNKED.contentEqualsIgnoreCase(codings.get(0).trim()))) {
            return 501; // a coding besides chunked (the decoder already refused chunked that is not last)
        }
        String expect = headers.get(HttpHeaderNames.EXPECT);
        if (expect != null && !HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expect.trim())) {
            return 417;
        }
        return HttpUtil.getContentLength(request, 0L) > options.maxBodySize() ? 413 : 0;
    }

    private void content(HttpContent content) {
        Exchange exchange = receiving;
        if (exchange == null) {
            return;
        }
        if (content.decoderResult().isFailure()) { // a bad chunk size or chunk end
            LOG.log(System.Logger.Level.DEBUG, () -> "refusing a request on " + ctx.channel() + ": " + content.decoderResult().cause());
            reject(exchange, 400);
            return;
        }
        ByteBuf part = content.content();
        if (part.isReadable()) {
            if (body == null) {
                body = ctx.alloc().compositeBuffer();
            }
            if ((long) body.readableBytes() + part.readableBytes() > options.maxBodySize()) {
                reject(exchange, 413);
                return;
            }
            body.addComponent(true, part.retain());
        }
        if (content instanceof LastHttpContent) {
            HttpRequest head = exchange.request;
            byte[] bytes = body == null ? NO_BODY : ByteBufUtil.getBytes(body);
            releaseBody();
            receiving = null;
            cancelBodyTimer();
            if (!exchange.keepAlive) { // RFC 9112 §9.6: no request after one that ends the connection is processed
                ending = true;
                ctx.channel().config().setAutoRead(false);
            } else if (decoder.hasBufferedBytes()) { // a pipelined request has begun
                headPending = true;
                headStarted = System.nanoTime();
            }
            dispatch(exchange, Request.received(head.method().name(), head.uri(), head.protocolVersion().text(),
                    headerMap(head.headers()), bytes, (InetSocketAddress) ctx.channel().remoteAddress()));
        }
    }

    private static Map<String, List<String>> headerMap(HttpHeaders headers) {
        Map<String, List<String>> map = new LinkedHashMap<>();
        for (Map.Entry<String, String> field : headers) {
            map.computeIfAbsent(field.getKey().toLowerCase(Locale.ROOT), name -> new ArrayList<>(1)).add(field.getValue());
        }
        map.replaceAll((name, values) -> Collections.unmodifiableList(values));
        return map;
    }

    /** Answers with an error status and ends the connection after it. */
    private void reject(Exchange exchange, int status) {
        if (exchange == receiving) {
            receiving = null;
            cancelBodyTimer();
            releaseBody();
        }
        exchange.response = errorBody(status);
        exchange.closeAfter = true;
        ending = true;
        ctx.channel().config().setAutoRead(false);
        flush();
    }

    /** Hands a request read whole to the worker, at the end of the I/O thread's pass: see {@link Inbox}. */
    private void dispatch(Exchange exchange, Request request) {
        inbox.add(() -> {
            try {
                submit(exchange, request);
            } catch (Throwable failed) { // an Error from the handler's task(): it ends this connection only, not the Inbox's pass
                exceptionCaught(ctx, failed);
            }
        });
    }

    private void submit(Exchange exchange, Request request) {
        CompletableFuture<Response> task;
        try {
            task = server.submit(thread, request, inbox, (response, failure) -> outbox.post(() -> answered(exchange, response, failure)));
        } catch (RejectedExecutionException closing) { // the pool stopped: the server is going away
            exchange.response = errorBody(503);
            exchange.closeAfter = true;
            flush();
            return;
        } catch (RuntimeException failed) {
            answered(exchange, null, failed);
            return;
        }
        exchange.task = task;
    }

    private void answered(Exchange exchange, Response response, Throwable failure) {
        if (closed) {
            return;
        }
        Response answer = response;
        if (failure instanceof CancellationException) {
            return; // stopped from outside, which only the server's cut does: the connection is closing
        }
        if (failure != null) {
            // A CancellationException the handler threw itself arrives wrapped: a failure like any other.
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            LOG.log(System.Logger.Level.WARNING, "the handler of " + exchange.name() + " on " + thread.worker().name()
                    + " failed; the client got a 500", cause);
            answer = errorBody(500);
        } else if (response == null) {
            LOG.log(System.Logger.Level.WARNING, "the handler of " + exchange.name() + " on " + thread.worker().name()
                    + " returned null instead of a Response; the client got a 500");
            answer = errorBody(500);
        }
        thread.served();
        exchange.response = answer;
        flush();
    }

    /** Writes the answered exchanges at the head of the queue, in order; see the class comment. */
    private void flush() {
        if (!draining && server.closing()) { // close() began, and its drain task has not reached this connection yet
            drain(); // drains, then flushes with the last answer marked
            return;
        }
        boolean wrote = false;
        Exchange next;
        while ((next = exchanges.peek()) != null && next.response != null) {
            exchanges.poll();
            boolean last = next.closeAfter || !next.keepAlive || draining && exchanges.isEmpty();
            ChannelFuture written = write(next.response, next.http10, next.head, last);
            wrote = true;
            if (last) {
                ending = true;
                written.addListener(sent -> closeGently());
                break;
            }
        }
        if (wrote) {
            ctx.flush();
        }
        if (ending) {
            return;
        }
        next = exchanges.peek();
        if (next != null && next == receiving && next.expectsContinue) {
            next.expectsContinue = false;
            bodyStarted = System.nanoTime(); // the client may have waited for this: its body is due from now
            ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
        }
        if (!ctx.channel().config().isAutoRead() && !draining && exchanges.size() < MAX_PIPELINED) {
            ctx.channel().config().setAutoRead(true);
            if (receiving != null) { // the rest of a body may have waited unread: due from now
                bodyStarted = System.nanoTime();
                if (bodyTimer == null) {
                    armBodyTimer();
                }
            }
            if (headPending) {
                headStarted = System.nanoTime();
                if (headTimer == null) {
                    armHeadTimer();
                }
            }
        }
    }

    private ChannelFuture write(Response response, boolean http10, boolean head, boolean last) {
        HttpVersion version = http10 ? HttpVersion.HTTP_1_0 : HttpVersion.HTTP_1_1;
        HttpResponseStatus status = HttpResponseStatus.valueOf(response.status());
        if (response.isChunked() && !http10 && !head) {
            HttpResponse start = new DefaultHttpResponse(version, status, CHECKED_FIELDS);
            fields(start.headers(), response, http10, last);
            HttpUtil.setTransferEncodingChunked(start, true);
            ctx.write(start);
            for (byte[] chunk : response.chunkList()) {
                ctx.write(new DefaultHttpContent(Unpooled.wrappedBuffer(chunk)));
            }
            return ctx.write(LastHttpContent.EMPTY_LAST_CONTENT);
        }
        byte[] bytes = response.isChunked() ? response.body() : response.bodyBytes();
        FullHttpResponse full = new DefaultFullHttpResponse(version, status,
                head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(bytes), CHECKED_FIELDS.newHeaders(), EmptyHttpHeaders.INSTANCE);
        fields(full.headers(), response, http10, last);
        // A HEAD answer says what a GET would send; a 204 has no length, and a 304's would have to be the GET's.
        if (response.status() != 204 && response.status() != 304 && !(head && response.isChunked())) {
            HttpUtil.setContentLength(full, bytes.length);
        }
        return ctx.write(full);
    }

    private static void fields(HttpHeaders headers, Response response, boolean http10, boolean last) {
        response.headers().forEach(headers::add);
        if (!headers.contains(HttpHeaderNames.DATE)) { // RFC 9110 §6.6.1; a handler's own Date stays
            headers.set(HttpHeaderNames.DATE, HttpDate.now());
        }
        if (last) {
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else if (http10) {
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
    }

    private static Response errorBody(int status) {
        return Response.of(status, "text/plain; charset=utf-8",
                (status + " " + HttpResponseStatus.valueOf(status).reasonPhrase()).getBytes(StandardCharsets.US_ASCII));
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof ChannelInputShutdownEvent) {
            clientDoneSending();
            return;
        }
        if (event instanceof IdleStateEvent && exchanges.size() == (receiving != null ? 1 : 0) && !outputMoved()) {
            LOG.log(System.Logger.Level.DEBUG, () -> "closing " + ctx.channel() + ": idle for " + options.idleTimeout());
            ctx.close(); // no task of this connection runs, and it has neither sent nor taken anything for the idle timeout
            return;
        }
        ctx.fireUserEventTriggered(event);
    }

    /**
     * Whether a response is still being written and the client has taken some of it since the last
     * idle event looked (or none looked yet): a client reading a long answer slowly is not idle, one
     * that stopped reading is, after a whole idle timeout without progress.
     */
    private boolean outputMoved() {
        ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
        if (out == null || out.totalPendingWriteBytes() == 0) {
            outputSeen = null;
            return false;
        }
        OutputState now = new OutputState(System.identityHashCode(out.current()), out.currentProgress(), out.totalPendingWriteBytes());
        boolean moved = !now.equals(outputSeen);
        outputSeen = now;
        return moved;
    }

    /**
     * The client shut its output (or closed) after its requests: the decoder has already passed on
     * every request it sent whole (and refused one cut short). Those still get their answers, the
     * last one saying {@code Connection: close}, and the connection closes after it, at once if
     * nothing is owed, as in a {@link #drain()}.
     */
    private void clientDoneSending() {
        LOG.log(System.Logger.Level.DEBUG, () -> "the client of " + ctx.channel() + " shut its output; " + exchanges.size()
                + " requests still to answer");
        inputShut = true;
        if (outputShut) { // we had answered last and were only reading what the client still sent: it is done
            ctx.close();
            return;
        }
        if (ending) { // the last answer is decided, and closing after it sees inputShut
            return;
        }
        drain();
    }

    /**
     * Graceful close, from the server: reads nothing more, drops a request not yet read whole,
     * answers the requests already dispatched and closes after the last of them (at once if none).
     */
    void drain() {
        if (closed || draining) {
            return;
        }
        draining = true;
        ctx.channel().config().setAutoRead(false);
        cancelHeadTimer();
        cancelBodyTimer();
        if (receiving != null) {
            exchanges.removeLast();
            receiving = null;
            releaseBody();
        }
        if (exchanges.isEmpty()) {
            ending = true;
            ctx.close();
            return;
        }
        flush();
    }

    /** Immediate close, from the server: stops this connection's tasks and closes it. */
    void cut() {
        for (Exchange exchange : exchanges) {
            if (exchange.task != null) {
                exchange.task.cancel(true);
            }
        }
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed = true;
        cancelHeadTimer();
        cancelBodyTimer();
        exchanges.clear(); // their tasks finish unheard: see the class comment
        releaseBody();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            LOG.log(System.Logger.Level.DEBUG, () -> "closing " + ctx.channel() + ": " + cause);
        } else {
            LOG.log(System.Logger.Level.WARNING, "closing " + ctx.channel() + " after an unexpected failure", cause);
        }
        ctx.close();
    }

    /**
     * Closes after the last response: first only the output (the client reads the answer, then the
     * end of the stream), reading and dropping what the client still sends, and the whole channel
     * once the client closes or after {@link #LINGER}. Closing at once with unread input would reset
     * the connection, and a reset may destroy the answer before the client reads it (a 413 sent
     * while the client still uploads, say).
     */
    private void closeGently() {
        if (closed || inputShut || !(ctx.channel() instanceof SocketChannel socket) || socket.isInputShutdown()) {
            ctx.close(); // nothing unread can come: a close resets nothing
            return;
        }
        outputShut = true;
        socket.shutdownOutput();
        socket.config().setAutoRead(true);
        ctx.executor().schedule(() -> ctx.close(), LINGER.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void releaseBody() {
        if (body != null) {
            body.release();
            body = null;
        }
    }
}
