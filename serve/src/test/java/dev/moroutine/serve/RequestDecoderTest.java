package dev.moroutine.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The decoder's folding check, whatever pieces the bytes arrive in (whole, or a few bytes a read). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RequestDecoderTest {

    private static final String CLEAN = "GET /a HTTP/1.1\r\nHost: x\r\nX-A: a b \r\nX-B:\tb\r\n\r\n";
    private static final String FOLDED_SPACE = "GET /b HTTP/1.1\r\nHost: x\r\nX-A: a\r\n folded\r\n\r\n";
    private static final String FOLDED_TAB = "GET /c HTTP/1.1\r\nHost: x\r\nX-A: a\r\n\tfolded\r\n\r\n";

    /** Whether each request decoded from the bytes, fed in pieces of {@code piece} bytes, was accepted. */
    private static List<String> decode(String bytes, int piece) {
        EmbeddedChannel channel = new EmbeddedChannel(new RequestDecoder(ServerOptions.defaults(), () -> { }));
        byte[] all = bytes.getBytes(StandardCharsets.ISO_8859_1);
        for (int at = 0; at < all.length; at += piece) {
            channel.writeInbound(Unpooled.wrappedBuffer(all, at, Math.min(piece, all.length - at)));
        }
        List<String> results = new ArrayList<>();
        for (Object message; (message = channel.readInbound()) != null; ) {
            if (message instanceof HttpRequest request) {
                results.add(request.uri() + (request.decoderResult().isSuccess() ? " ok" : " refused"));
            }
            ReferenceCountUtil.release(message);
        }
        channel.finishAndReleaseAll();
        return results;
    }

    @ParameterizedTest(name = "{0} bytes a read")
    @ValueSource(ints = {1, 2, 3, 5, 8, 13, 1000})
    void refusesFoldedLinesOnlyWhateverPiecesTheyArriveIn(int piece) {
        assertEquals(List.of("/a ok", "/a ok"), decode(CLEAN + CLEAN, piece));
        assertEquals(List.of("/b refused"), decode(FOLDED_SPACE, piece).subList(0, 1));
        assertEquals(List.of("/c refused"), decode(FOLDED_TAB, piece).subList(0, 1));
        List<String> afterClean = decode(CLEAN + FOLDED_SPACE, piece);
        assertTrue(afterClean.size() >= 2 && afterClean.get(0).equals("/a ok") && afterClean.get(1).equals("/b refused"),
                afterClean.toString());
    }
}
