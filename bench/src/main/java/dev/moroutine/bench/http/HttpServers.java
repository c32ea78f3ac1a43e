package dev.moroutine.bench.http;

import static dev.moroutine.Moroutine.mo;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.moroutine.Mo1;
import dev.moroutine.serve.Request;
import dev.moroutine.serve.Response;
import dev.moroutine.serve.Server;
import dev.moroutine.serve.ServerOptions;
import io.helidon.http.HeaderValues;
import io.helidon.webserver.WebServer;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.netty.handler.codec.http.HttpUtil;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The servers of the HTTP comparison, each answering {@link Hello}'s two paths: moroutine
 * {@code serve}, Netty 4.2's own hello-world server, Helidon SE's WebServer (virtual threads) and
 * the JDK's {@code com.sun.net.httpserver} on a virtual-thread executor. Each is set up as its
 * documentation shows, with its defaults; all listen on the loopback address.
 *
 * <p>{@link #main} runs one in its own JVM for {@link HttpBench}: it prints {@code port=N} once
 * listening, and stops when its standard input ends.
 */
public final class HttpServers {

    /** A running server. */
    public interface Running extends AutoCloseable {

        /**
         * The port it listens on.
         *
         * @return the port
         */
        int port();

        @Override
        void close();
    }

    /** The contenders, in the order of the report. */
    public enum Contender {
        /** moroutine {@code serve}, with its defaults: one Netty I/O thread, one worker per CPU. */
        SERVE("moroutine serve", "defaults: 1 Netty I/O thread, a pool of 1 worker per CPU it sees, each connection pinned to one") {
            @Override
            Running start() {
                ServerOptions options = ServerOptions.defaults();
                if (Integer.getInteger("bench.serve.io") != null) { // for experiments only
                    options = options.withIoThreads(Integer.getInteger("bench.serve.io"));
                }
                if (Integer.getInteger("bench.serve.workers") != null) {
                    options = options.withWorkers(Integer.getInteger("bench.serve.workers"));
                }
                Server server = Server.start(SERVE_HANDLER, options);
                return running(server.port(), server::close);
            }
        },
        /** Netty's hello-world example (io.netty.example.http.helloworld), on NIO. */
        NETTY("Netty 4.2", "its hello-world example: HttpServerCodec and a handler that writes at once and flushes per read;"
                + " NIO, 1 boss thread and Netty's default worker count (2 per CPU it sees)") {
            @Override
            Running start() {
                return startNetty();
            }
        },
        /** Helidon SE 4's WebServer: a virtual thread per connection. */
        HELIDON("Helidon SE 4.5", "WebServer with its defaults: a virtual thread per connection (Níma)") {
            @Override
            Running start() {
                WebServer server = WebServer.builder()
                        .host(InetAddress.getLoopbackAddress().getHostAddress())
                        .port(0)
                        .shutdownHook(false)
                        .routing(routing -> routing
                                .get(Hello.PLAINTEXT_PATH, (request, response) -> {
                                    response.header(HeaderValues.CONTENT_TYPE_TEXT_PLAIN);
                                    response.send(Hello.TEXT_BYTES);
                                })
                                .get(Hello.JSON_PATH, (request, response) -> {
                                    response.header(HeaderValues.CONTENT_TYPE_JSON);
                                    response.send(Hello.json());
                                }))
                        .build()
                        .start();
                return running(server.port(), server::stop);
            }
        },
        /** The JDK's built-in server with a virtual thread per exchange. */
        JDK("JDK HttpServer", "com.sun.net.httpserver with Executors.newVirtualThreadPerTaskExecutor()") {
            @Override
            Running start() {
                try {
                    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
                    ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
                    server.setExecutor(executor);
                    server.createContext(Hello.PLAINTEXT_PATH, exchange -> answer(exchange, Hello.TEXT_TYPE, Hello.TEXT_BYTES));
                    server.createContext(Hello.JSON_PATH, exchange -> answer(exchange, Hello.JSON_TYPE, Hello.json()));
                    server.start();
                    return running(server.getAddress().getPort(), () -> {
                        server.stop(0);
                        executor.shutdownNow();
                    });
                } catch (IOException cannotListen) {
                    throw new UncheckedIOException(cannotListen);
                }
            }
        };

        private final String label;
        private final String setup;

        Contender(String label, String setup) {
            this.label = label;
            this.setup = setup;
        }

        /**
         * The name in the report.
         *
         * @return the label
         */
        public String label() {
            return label;
        }

        /**
         * How it is set up, for the report.
         *
         * @return a sentence
         */
        public String setup() {
            return setup;
        }

        /** Starts it on a free port of the loopback address. */
        abstract Running start();
    }

    /** serve's handler: a moroutine from request to response. */
    static final Mo1<Request, Response> SERVE_HANDLER = mo(request -> Hello.JSON_PATH.equals(request.path())
            ? Response.of(200, Hello.JSON_TYPE, Hello.json())
            : Response.of(200, Hello.TEXT_TYPE, Hello.TEXT_BYTES));

    private HttpServers() {}

    private static Running running(int port, Runnable stop) {
        return new Running() {
            @Override
            public int port() {
                return port;
            }

            @Override
            public void close() {
                stop.run();
            }
        };
    }

    private static void answer(HttpExchange exchange, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    /** Netty's HttpHelloWorldServer, as in its examples, on Netty 4.2's MultiThreadIoEventLoopGroup. */
    private static Running startNetty() {
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        EventLoopGroup workers = new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory());
        Channel listener = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channel.pipeline().addLast(new HttpServerCodec(), new HttpServerExpectContinueHandler(), new NettyHello());
                    }
                })
                .bind(InetAddress.getLoopbackAddress(), 0)
                .syncUninterruptibly()
                .channel();
        return running(((InetSocketAddress) listener.localAddress()).getPort(), () -> {
            listener.close().syncUninterruptibly();
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        });
    }

    /** Netty's HttpHelloWorldServerHandler: writes each answer at once, flushes once per read. */
    private static final class NettyHello extends SimpleChannelInboundHandler<HttpObject> {

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
            if (msg instanceof HttpRequest request) {
                boolean json = request.uri().equals(Hello.JSON_PATH);
                boolean keepAlive = HttpUtil.isKeepAlive(request);
                FullHttpResponse response = new DefaultFullHttpResponse(request.protocolVersion(), HttpResponseStatus.OK,
                        Unpooled.wrappedBuffer(json ? Hello.json() : Hello.TEXT_BYTES));
                response.headers()
                        .set(HttpHeaderNames.CONTENT_TYPE, json ? HttpHeaderValues.APPLICATION_JSON : HttpHeaderValues.TEXT_PLAIN)
                        .setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
                if (keepAlive) {
                    if (!request.protocolVersion().isKeepAliveDefault()) {
                        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
                    }
                } else {
                    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                }
                var written = ctx.write(response);
                if (!keepAlive) {
                    written.addListener(ChannelFutureListener.CLOSE);
                }
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /**
     * Runs one server until standard input ends: prints {@code port=N} once it listens.
     *
     * @param args the contender's name, such as {@code SERVE}
     * @throws IOException if standard input fails
     */
    public static void main(String[] args) throws IOException {
        Contender contender = Contender.valueOf(args[0]);
        try (Running server = contender.start()) {
            System.out.println("port=" + server.port());
            System.out.flush();
            while (System.in.read() >= 0) {
                // the bench closes our standard input to stop us
            }
        }
        System.exit(0);
    }
}
