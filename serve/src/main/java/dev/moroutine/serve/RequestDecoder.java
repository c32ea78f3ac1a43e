package dev.moroutine.serve;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import java.util.List;

/**
 * Netty's request decoder, strict (RFC 9112 framing: no duplicate {@code Content-Length}, none
 * beside {@code Transfer-Encoding}, {@code chunked} last and once, CRLF line ends) and with two
 * additions for {@link Connection}: it reports each read before decoding it (the header deadline
 * starts at a request's first byte), and it fails a request whose header section uses obsolete
 * line folding.
 *
 * <p>Netty merges a folded line into the field before it, which RFC 9112 allows; the server
 * rejects it instead, as a request-smuggling guard, so that no proxy in front can read the fields
 * differently. Netty offers no hook for it, so this decoder looks at the bytes that Netty itself
 * consumed while reading a header section (whole lines: it consumes a header line only when it
 * is complete): a line that starts with a space or a tab there is a folded one.
 */
final class RequestDecoder extends HttpRequestDecoder {

    private final Runnable onRead;
    /** A request line has been decoded and its header section not yet. */
    private boolean inHeaders;
    private boolean folded;

    RequestDecoder(ServerOptions options, Runnable onRead) {
        super(new HttpDecoderConfig()
                .setMaxInitialLineLength(options.maxRequestLineLength())
                .setMaxHeaderSize(options.maxHeaderSize())
                .setAllowDuplicateContentLengths(false)
                .setStrictLineParsing(true)
                .setUseRfc9112TransferEncoding(true));
        this.onRead = onRead;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof ByteBuf bytes && bytes.isReadable()) {
            onRead.run();
        }
        super.channelRead(ctx, msg);
    }

    /** Whether bytes of a next request have been read but not decoded into one yet. */
    boolean hasBufferedBytes() {
        return internalBuffer().isReadable();
    }

    @Override
    protected HttpMessage createMessage(String[] initialLine) throws Exception {
        inHeaders = true;
        return super.createMessage(initialLine);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        boolean headersBefore = inHeaders;
        int from = in.readerIndex();
        int decoded = out.size();
        super.decode(ctx, in, out);
        if (!headersBefore && !inHeaders) {
            return; // a body, or bytes before a request line
        }
        int to = in.readerIndex();
        // A header line that starts where this call started (the last call stopped at a line's end),
        // or after a line feed within what it consumed, and starts with whitespace, is a folded one.
        if (headersBefore && to > from && isBlank(in.getByte(from))) {
            folded = true;
        }
        // Line feeds found by ByteBuf.indexOf, which scans eight bytes at a time, not byte by byte.
        // (indexOf searches backwards when its start passes its end: a call that consumed under two bytes has no such pair.)
        for (int i = to - from < 2 ? -1 : in.indexOf(from, to - 1, (byte) '\n'); i >= 0 && !folded;
                i = in.indexOf(i + 1, to - 1, (byte) '\n')) {
            folded = isBlank(in.getByte(i + 1));
        }
        for (int i = decoded; i < out.size(); i++) {
            if (out.get(i) instanceof HttpRequest request) {
                if (folded && request.decoderResult().isSuccess()) {
                    request.setDecoderResult(DecoderResult.failure(new IllegalArgumentException(
                            "obsolete line folding (a header line that starts with whitespace) is not accepted")));
                }
                inHeaders = false;
                folded = false;
            }
        }
    }

    private static boolean isBlank(byte b) {
        return b == ' ' || b == '\t';
    }
}
