package dev.moroutine.serve;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * An HTTP response as a handler returns it: a status, header fields and a body, sent with a
 * {@code Content-Length}, or as a list of chunks sent with {@code Transfer-Encoding: chunked}. The
 * server sets {@code Content-Length}, {@code Transfer-Encoding} and {@code Connection} itself, and
 * sends no body in answer to {@code HEAD}. A value: immutable and thread-safe.
 *
 * <pre>{@code
 * Response.text("hello")                                     // 200, text/plain; charset=utf-8
 * Response.of(404)                                           // no body
 * Response.json("{\"id\":7}").withHeader("Cache-Control", "no-store")
 * Response.chunked(200, "text/plain", List.of(part1, part2)) // one HTTP chunk each
 * }</pre>
 */
public final class Response {

    /** Fields whose value follows from the body and the connection: the server writes them. */
    private static final Set<String> SET_BY_SERVER = Set.of("content-length", "transfer-encoding", "connection");
    private static final String TOKEN_SYMBOLS = "!#$%&'*+-.^_`|~";

    private final int status;
    private final Map<String, List<String>> headers;
    private final byte[] body;
    /** The chunks of a chunked body; null for a body sent with a {@code Content-Length}. */
    private final List<byte[]> chunks;

    private Response(int status, Map<String, List<String>> headers, byte[] body, List<byte[]> chunks) {
        this.status = status;
        this.headers = headers;
        this.body = body;
        this.chunks = chunks;
    }

    /**
     * A 200 response with a text body.
     *
     * @param text the body, sent as UTF-8
     * @return a {@code text/plain; charset=utf-8} response
     * @throws NullPointerException if {@code text} is null
     */
    public static Response text(String text) {
        return of(200, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A 200 response with a JSON body.
     *
     * @param json the body, already JSON, sent as UTF-8
     * @return an {@code application/json} response
     * @throws NullPointerException if {@code json} is null
     */
    public static Response json(String json) {
        return of(200, "application/json", json.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A response with no body.
     *
     * @param status the status code, 200 to 599
     * @return the response
     * @throws IllegalArgumentException if {@code status} is out of range
     */
    public static Response of(int status) {
        return new Response(checkStatus(status, false), Map.of(), new byte[0], null);
    }

    /**
     * A response with a body.
     *
     * @param status the status code, 200 to 599
     * @param contentType the body's media type, such as {@code text/html; charset=utf-8}
     * @param body the body (copied)
     * @return the response
     * @throws IllegalArgumentException if {@code status} is out of range, is 204 or 304 (which have no
     *     body) while {@code body} is not empty, or {@code contentType} is not a valid field value
     * @throws NullPointerException if an argument is null
     */
    public static Response of(int status, String contentType, byte[] body) {
        checkStatus(status, body.length > 0);
        return new Response(status, Map.of("content-type", List.of(checkValue("Content-Type", contentType))), body.clone(), null);
    }

    /**
     * A response whose body is sent with {@code Transfer-Encoding: chunked}, one HTTP chunk per
     * element (to an {@code HTTP/1.0} client, which cannot read chunks, as one body with a length).
     *
     * @param status the status code, 200 to 599, not 204 or 304
     * @param contentType the body's media type
     * @param chunks the body's parts, in order (copied); empty ones are left out
     * @return the response
     * @throws IllegalArgumentException if {@code status} is out of range or is 204 or 304, or
     *     {@code contentType} is not a valid field value
     * @throws NullPointerException if an argument or a chunk is null
     */
    public static Response chunked(int status, String contentType, List<byte[]> chunks) {
        checkStatus(status, true);
        List<byte[]> copies = new ArrayList<>(chunks.size());
        for (byte[] chunk : chunks) {
            if (chunk.length > 0) {
                copies.add(chunk.clone());
            }
        }
        return new Response(status, Map.of("content-type", List.of(checkValue("Content-Type", contentType))), null,
                Collections.unmodifiableList(copies));
    }

    /**
     * A copy with one more header field value; a field already present keeps its earlier values.
     *
     * @param name the field's name, such as {@code Cache-Control}
     * @param value its value
     * @return the new response
     * @throws IllegalArgumentException if {@code name} is not a field name, is one that the server
     *     sets itself ({@code Content-Length}, {@code Transfer-Encoding}, {@code Connection}), or
     *     {@code value} holds a line break or another control character
     * @throws NullPointerException if an argument is null
     */
    public Response withHeader(String name, String value) {
        String key = checkName(name);
        checkValue(name, value);
        Map<String, List<String>> copy = new LinkedHashMap<>(headers);
        List<String> values = new ArrayList<>(copy.getOrDefault(key, List.of()));
        values.add(value);
        copy.put(key, List.copyOf(values));
        return new Response(status, Collections.unmodifiableMap(copy), body, chunks);
    }

    /**
     * The status code.
     *
     * @return the status, 200 to 599
     */
    public int status() {
        return status;
    }

    /**
     * The header fields the response was made with, by lower-case name.
     *
     * @return an unmodifiable map
     */
    public Map<String, List<String>> headers() {
        return headers;
    }

    /**
     * The body; of a chunked response, its chunks one after the other.
     *
     * @return a copy of the body's bytes
     */
    public byte[] body() {
        if (chunks == null) {
            return body.clone();
        }
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        chunks.forEach(all::writeBytes);
        return all.toByteArray();
    }

    /**
     * Whether the body is sent with {@code Transfer-Encoding: chunked}.
     *
     * @return {@code true} for a response made by {@link #chunked}
     */
    public boolean isChunked() {
        return chunks != null;
    }

    /** The body itself, for the server, which only reads it. */
    byte[] bodyBytes() {
        return body;
    }

    /** The chunks themselves, for the server, which only reads them; null for a body with a length. */
    List<byte[]> chunkList() {
        return chunks;
    }

    private static int checkStatus(int status, boolean hasBody) {
        if (status < 200 || status > 599) {
            throw new IllegalArgumentException("status " + status + " is not a final response status; use 200 to 599"
                    + " (the server sends 100 Continue itself)");
        }
        if (hasBody && (status == 204 || status == 304)) {
            throw new IllegalArgumentException("a " + status + " response has no body; use Response.of(" + status + ")");
        }
        return status;
    }

    private static String checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a header field name must not be empty");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || TOKEN_SYMBOLS.indexOf(c) >= 0)) {
                throw new IllegalArgumentException("header field name '" + name + "' holds '" + c + "' at index " + i
                        + "; a name is letters, digits and " + TOKEN_SYMBOLS);
            }
        }
        String key = name.toLowerCase(Locale.ROOT);
        if (SET_BY_SERVER.contains(key)) {
            throw new IllegalArgumentException(name + " is set by the server (from the body and the connection's state);"
                    + " leave it out, and use Response.chunked(…) for a chunked body");
        }
        return key;
    }

    private static String checkValue(String name, String value) {
        Objects.requireNonNull(value, "value");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < ' ' && c != '\t' || c == 0x7f || c > 0xff) {
                throw new IllegalArgumentException("the value of header field " + name + " holds character 0x"
                        + Integer.toHexString(c) + " at index " + i + "; a value is one line of visible Latin-1"
                        + " characters, spaces and tabs");
            }
        }
        return value;
    }

    @Override
    public String toString() {
        return "Response " + status + (chunks != null ? " (" + chunks.size() + " chunks)" : " (" + body.length + " bytes)");
    }
}
