package dev.moroutine.serve;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A test client on a raw socket: it sends bytes exactly as given (malformed requests included)
 * and decodes what comes back with Netty's client-side decoder, so no test parses HTTP by hand.
 * Every read has a deadline.
 */
final class RawClient implements AutoCloseable {

    /** A decoded response: status, headers and body as text. */
    record Reply(int status, io.netty.handler.codec.http.HttpHeaders headers, String body) {
        String header(String name) {
            return headers.get(name);
        }
    }

    private final Socket socket;
    private final InputStream in;
    /** The header under which a reply keeps its {@code Transfer-Encoding}, which the aggregator replaces by a length. */
    static final String SENT_TRANSFER_ENCODING = "x-sent-transfer-encoding";

    private final EmbeddedChannel decoder = new EmbeddedChannel(new HttpResponseDecoder(), new ChannelInboundHandlerAdapter() {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpResponse head && head.headers().contains(HttpHeaderNames.TRANSFER_ENCODING)) {
                head.headers().set(SENT_TRANSFER_ENCODING, head.headers().get(HttpHeaderNames.TRANSFER_ENCODING));
            }
            ctx.fireChannelRead(msg);
        }
    }, new HttpObjectAggregator(16 << 20));
    private final byte[] buffer = new byte[16 * 1024];
    private boolean ended;

    RawClient(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setTcpNoDelay(true);
        in = socket.getInputStream();
    }

    RawClient send(String text) throws IOException {
        return send(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    RawClient send(byte[] bytes) throws IOException {
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
        return this;
    }

    /** Goes away abruptly: closes with a reset (RST), not with the end of the stream, which would be a half-close. */
    void reset() throws IOException {
        socket.setSoLinger(true, 0);
        close();
    }

    /** Shuts the socket's output (a half-close): the server reads the end of the stream, and may still answer. */
    RawClient shutdownOutput() throws IOException {
        socket.shutdownOutput();
        return this;
    }

    /** The next response, or an {@link AssertionError} if none comes within the timeout. */
    Reply read(Duration timeout) throws IOException {
        List<Reply> replies = read(1, timeout);
        return replies.getFirst();
    }

    /** The next {@code count} responses, in order, or an {@link AssertionError} if they do not all come in time. */
    List<Reply> read(int count, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Reply> replies = new ArrayList<>(count);
        while (true) {
            FullHttpResponse response;
            while (replies.size() < count && (response = decoder.readInbound()) != null) {
                try {
                    replies.add(new Reply(response.status().code(), response.headers().copy(),
                            response.content().toString(StandardCharsets.UTF_8)));
                } finally {
                    response.release();
                }
            }
            if (replies.size() == count) {
                return replies;
            }
            if (!fill(deadline)) {
                throw new AssertionError("got " + replies.size() + " of " + count + " responses before the server "
                        + (ended ? "closed the connection" : "went silent for " + timeout));
            }
        }
    }

    /** Whether the server closes the connection within the timeout, reading and discarding what comes before. */
    boolean closedByServer(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!ended) {
            if (!fill(deadline)) {
                return ended;
            }
        }
        return true;
    }

    /** Reads once more into the decoder; false at end of stream or past the deadline. */
    private boolean fill(long deadline) throws IOException {
        if (ended) {
            return false;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            return false;
        }
        socket.setSoTimeout((int) Math.max(1, Duration.ofNanos(left).toMillis()));
        int n;
        try {
            n = in.read(buffer);
        } catch (SocketTimeoutException late) {
            return false;
        } catch (IOException reset) { // a close with unread input resets the connection
            n = -1;
        }
        if (n < 0) {
            ended = true;
            decoder.finish();
            return true;
        }
        decoder.writeInbound(Unpooled.copiedBuffer(buffer, 0, n));
        return true;
    }

    @Override
    public void close() throws IOException {
        decoder.finishAndReleaseAll();
        socket.close();
    }
}
