package dev.moroutine.serve;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An HTTP request as a handler receives it: read whole, its body within the server's
 * {@linkplain ServerOptions#withMaxBodySize limit} and already de-chunked. A value: immutable and
 * thread-safe, so it may be an argument of any moroutine.
 */
public final class Request {

    private final String method;
    private final String target;
    private final String version;
    private final Map<String, List<String>> headers;
    private final byte[] body;
    private final InetSocketAddress remoteAddress;

    private Request(String method, String target, String version, Map<String, List<String>> headers, byte[] body,
            InetSocketAddress remoteAddress) {
        this.method = method;
        this.target = target;
        this.version = version;
        this.headers = headers;
        this.body = body;
        this.remoteAddress = remoteAddress;
    }

    /**
     * A request, as a handler's test may make one (the server makes its own).
     *
     * @param method the method, such as {@code GET}
     * @param target the request target as sent, such as {@code /items?id=7}
     * @param headers the header fields: names in lower case, each with its values in order (copied)
     * @param body the body (copied), empty for none
     * @return an {@code HTTP/1.1} request with no remote address
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if a header name is not in lower case
     */
    public static Request of(String method, String target, Map<String, List<String>> headers, byte[] body) {
        Map<String, List<String>> copied = new LinkedHashMap<>();
        headers.forEach((name, values) -> {
            if (!name.equals(name.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("header name '" + name + "' is not in lower case; requests keep header"
                        + " names in lower case, as HTTP/2 sends them, so write '" + name.toLowerCase(Locale.ROOT) + "'");
            }
            copied.put(name, List.copyOf(values));
        });
        return new Request(Objects.requireNonNull(method, "method"), Objects.requireNonNull(target, "target"), "HTTP/1.1",
                Collections.unmodifiableMap(copied), body.clone(), null);
    }

    /** A request read by the server, which hands over a map and an array that nobody else holds. */
    static Request received(String method, String target, String version, Map<String, List<String>> headers, byte[] body,
            InetSocketAddress remoteAddress) {
        return new Request(method, target, version, Collections.unmodifiableMap(headers), body, remoteAddress);
    }

    /**
     * The method.
     *
     * @return the method, such as {@code GET} or {@code POST}
     */
    public String method() {
        return method;
    }

    /**
     * The request target as the client sent it: path and query, still percent-encoded.
     *
     * @return the target, such as {@code /items?id=7}
     */
    public String target() {
        return target;
    }

    /**
     * The target's path, before any {@code ?}, still percent-encoded.
     *
     * @return the path, such as {@code /items}
     */
    public String path() {
        int query = target.indexOf('?');
        return query < 0 ? target : target.substring(0, query);
    }

    /**
     * The target's query, after the first {@code ?}, still percent-encoded.
     *
     * @return the query, such as {@code id=7}; empty if there is none
     */
    public String query() {
        int query = target.indexOf('?');
        return query < 0 ? "" : target.substring(query + 1);
    }

    /**
     * The protocol version.
     *
     * @return {@code HTTP/1.1} or {@code HTTP/1.0}
     */
    public String version() {
        return version;
    }

    /**
     * The header fields, by lower-case name, each with its values in the order they were received.
     *
     * @return an unmodifiable map
     */
    public Map<String, List<String>> headers() {
        return headers;
    }

    /**
     * The first value of a header field.
     *
     * @param name the field's name, in any case
     * @return its first value, or empty if the request has none
     */
    public Optional<String> header(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.getFirst());
    }

    /**
     * The body.
     *
     * @return a copy of the body's bytes; empty for none
     */
    public byte[] body() {
        return body.clone();
    }

    /**
     * The body decoded as UTF-8.
     *
     * @return the text; empty for no body
     */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /**
     * The client's address.
     *
     * @return the address, or null when unknown
     */
    public InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    @Override
    public String toString() {
        return method + " " + target;
    }
}
