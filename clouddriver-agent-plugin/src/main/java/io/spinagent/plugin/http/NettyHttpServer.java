package io.spinagent.plugin.http;

import com.sun.net.httpserver.HttpHandler;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;

/**
 * An HTTP/1.1 server on Netty (the one Clouddriver ships), over TLS or plain, that serves every
 * request with one {@link HttpHandler}, as the JDK's {@code HttpServer} would, but holds clients to
 * {@link RequestHeadLimits} and a {@link RequestBodyLimit}: a client that is too slow to send a
 * request's line and headers is answered {@code 408}, one whose line or headers are too large
 * {@code 414}/{@code 431}, one whose body is too large {@code 413}, each with a Kubernetes {@code
 * Status} naming the setting and {@code Connection: close}; what the client still sends is read and
 * thrown away for a moment, so that it reads the answer rather than a reset, and the connection is
 * closed. The JDK server can only drop such clients without an answer, or not at all. The tunnel
 * and the forwarding endpoint between replicas run on it.
 *
 * <p>Threads: the event loop {@code <name>-io-*} ({@link #IO_THREADS} threads, accepting
 * connections, TLS and HTTP framing; never blocks), and the caller's {@code handlers} executor, one
 * thread per request in flight. Closing the server stops both.
 */
public final class NettyHttpServer implements AutoCloseable {

  /** Event-loop threads: TLS and framing for kubectl's few connections need little. */
  static final int IO_THREADS = 2;

  /** The largest chunk of a request body handed to the handler at once. */
  private static final int MAX_CHUNK = 64 * 1024;

  private final EventLoopGroup loop;
  private final Channel listening;
  private final ExecutorService handlers;

  private NettyHttpServer(EventLoopGroup loop, Channel listening, ExecutorService handlers) {
    this.loop = loop;
    this.listening = listening;
    this.handlers = handlers;
  }

  /**
   * Listens on {@code address} (port 0: any free port) over TLS and serves with {@code handler} on
   * {@code handlers}, which the server then owns; request bodies of any size.
   */
  public static NettyHttpServer start(
      String name,
      InetSocketAddress address,
      SSLContext tls,
      RequestHeadLimits limits,
      HttpHandler handler,
      ExecutorService handlers)
      throws IOException {
    return start(name, address, tls, limits, RequestBodyLimit.NONE, handler, handlers);
  }

  /**
   * Listens on {@code address} (port 0: any free port) and serves with {@code handler} on {@code
   * handlers}, which the server then owns.
   *
   * @param tls the server's TLS (its certificate, and whether it asks clients for theirs); null
   *     serves plain HTTP
   */
  public static NettyHttpServer start(
      String name,
      InetSocketAddress address,
      SSLContext tls,
      RequestHeadLimits limits,
      RequestBodyLimit bodyLimit,
      HttpHandler handler,
      ExecutorService handlers)
      throws IOException {
    EventLoopGroup loop =
        new NioEventLoopGroup(IO_THREADS, new DefaultThreadFactory(name + "-io", true));
    int decoderLimit = decoderLimit(limits);
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(loop)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, Backlog.CONNECTIONS)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel channel) {
                    HttpConnection connection =
                        new HttpConnection(limits, bodyLimit, handler, handlers);
                    if (tls != null) {
                      SSLEngine engine = tls.createSSLEngine();
                      engine.setUseClientMode(false);
                      channel.pipeline().addLast(new SslHandler(engine));
                    }
                    channel
                        .pipeline()
                        .addLast(connection.firstBytes())
                        .addLast(new HttpServerCodec(decoderLimit, decoderLimit, MAX_CHUNK))
                        .addLast(new HttpServerExpectContinueHandler())
                        .addLast(connection);
                  }
                });
    ChannelFuture bound = bootstrap.bind(address).awaitUninterruptibly();
    if (!bound.isSuccess()) {
      loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).awaitUninterruptibly();
      handlers.shutdownNow();
      throw new IOException(bound.cause().getMessage(), bound.cause());
    }
    return new NettyHttpServer(loop, bound.channel(), handlers);
  }

  /**
   * What the HTTP decoder reads of a request line, and of its headers, before it gives up: the
   * limit itself, so that a client that stops sending to wait for an answer once it has sent a
   * little more than the limit (curl does at 128 KiB) gets its answer.
   */
  static int decoderLimit(RequestHeadLimits limits) {
    return (int) Math.min(Integer.MAX_VALUE, limits.maxBytes());
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) listening.localAddress();
  }

  /** Stops listening, closes every connection and ends the requests in flight. */
  @Override
  public void close() {
    listening.close().awaitUninterruptibly();
    loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).awaitUninterruptibly();
    handlers.shutdownNow();
  }
}
