package dev.moroutine.bench.http;

import java.nio.charset.StandardCharsets;

/**
 * What every server of the HTTP comparison answers, the same work in each: {@code /plaintext} a
 * constant {@code Hello, World!} ({@code text/plain}), and {@code /json} a small JSON object made
 * for each request ({@code application/json}), as in the TechEmpower plaintext and JSON tests.
 */
public final class Hello {

    /** The plaintext path. */
    public static final String PLAINTEXT_PATH = "/plaintext";
    /** The JSON path. */
    public static final String JSON_PATH = "/json";
    /** The plaintext body's text. */
    public static final String TEXT = "Hello, World!";
    /** The plaintext body. */
    public static final byte[] TEXT_BYTES = TEXT.getBytes(StandardCharsets.UTF_8);
    /** The plaintext body's media type. */
    public static final String TEXT_TYPE = "text/plain";
    /** The JSON body's media type. */
    public static final String JSON_TYPE = "application/json";

    private Hello() {}

    /**
     * A new JSON body, {@code {"message":"Hello, World!"}}, serialised for this request.
     *
     * @return the body's bytes, UTF-8
     */
    public static byte[] json() {
        StringBuilder out = new StringBuilder(32).append("{\"message\":\"");
        for (int i = 0; i < TEXT.length(); i++) {
            char c = TEXT.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\');
            }
            out.append(c);
        }
        return out.append("\"}").toString().getBytes(StandardCharsets.UTF_8);
    }
}
