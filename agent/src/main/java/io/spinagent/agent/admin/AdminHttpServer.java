package io.spinagent.agent.admin;

import io.grpc.netty.shaded.io.netty.bootstrap.ServerBootstrap;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelFuture;
import io.grpc.netty.shaded.io.netty.channel.ChannelInitializer;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.SocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpServerCodec;
import io.grpc.netty.shaded.io.netty.util.concurrent.Future;
import io.spinagent.agent.config.ServerConfig;
import io.spinagent.common.DaemonThreads;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.LinkedHashSet;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP/1.1 server of the agent's admin ports ({@code server.port}, {@code prometheus.port}).
 * Kubelet's probes and Prometheus' scrapes must be answered however many slow or idle clients reach
 * the port, so no client holds a thread while its request arrives: one event-loop thread reads
 * every connection, and a {@link AdminConnection} holds each client to the {@link ServerConfig}
 * limits (408 past {@code server.headerTimeout}, 431/414 past {@link #MAX_HEAD_BYTES}, at most
 * {@code server.maxConnections} connections). The JDK's {@code HttpServer}, which this replaces,
 * read each request's head on one of its two handler threads, so two clients that sent half a
 * request stalled every probe.
 *
 * <p>Netty is the one grpc-java ships relocated in grpc-netty-shaded: the agent carries it anyway,
 * and a second Netty would be 4 MB more in the jar, of a version the sandbox's Clouddriver
 * libraries would fight over.
 *
 * <p>Threads: {@code <name>-io}, the event loop; answers that wait on something other than memory
 * run where the {@link Responder} puts them.
 */
final class AdminHttpServer implements AutoCloseable {

  /**
   * A request's line and headers together; a longer line is answered 414, longer headers 431. A
   * probe's or a scrape's are a few hundred bytes.
   */
  static final int MAX_HEAD_BYTES = 16 * 1024;

  /** Answers one request. */
  @FunctionalInterface
  interface Responder {

    /**
     * The answer to a GET (or HEAD) of {@code path} (decoded) with {@code query} (raw, or null).
     * Called on the event loop: an answer from memory is returned completed, one that waits on
     * anything else completes on another thread.
     */
    CompletionStage<AdminServer.Reply> answer(String path, String query);
  }

  private final EventLoopGroup loop;
  private final Channel listening;

  private AdminHttpServer(EventLoopGroup loop, Channel listening) {
    this.loop = loop;
    this.listening = listening;
  }

  /**
   * Listens on all interfaces at {@code limits.port()} (0: any free port).
   *
   * @param name the event-loop thread is {@code <name>-io}
   * @throws IOException when the port cannot be bound
   */
  static AdminHttpServer start(String name, ServerConfig limits, Responder responder)
      throws IOException {
    EventLoopGroup loop = new NioEventLoopGroup(1, DaemonThreads.named(name + "-io"));
    Connections connections = new Connections(limits.maxConnections());
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(loop)
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel channel) {
                    AdminConnection connection =
                        new AdminConnection(limits, connections, responder);
                    channel
                        .pipeline()
                        .addLast(connection.firstBytes())
                        .addLast(new HttpServerCodec(MAX_HEAD_BYTES, MAX_HEAD_BYTES, 8192))
                        .addLast(connection);
                  }
                });
    ChannelFuture bound =
        bootstrap.bind(new InetSocketAddress(limits.port())).awaitUninterruptibly();
    if (!bound.isSuccess()) {
      stop(loop);
      throw new IOException(bound.cause().getMessage(), bound.cause());
    }
    return new AdminHttpServer(loop, bound.channel());
  }

  int port() {
    return ((InetSocketAddress) listening.localAddress()).getPort();
  }

  /** Stops listening and closes every connection. */
  @Override
  public void close() {
    ChannelFuture unused = listening.close().awaitUninterruptibly();
    stop(loop);
  }

  /** Stops the event loop, which closes the connections left, and waits until it has. */
  private static void stop(EventLoopGroup loop) {
    Future<?> unused = loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).awaitUninterruptibly();
  }

  /**
   * The open connections of one server, in the order they began to wait (for a request, or to
   * close), and the limit on their number. Used on the server's one event-loop thread only.
   */
  static final class Connections {

    private final int max;
    private final LinkedHashSet<AdminConnection> open = new LinkedHashSet<>();

    Connections(int max) {
      this.max = max;
    }

    /**
     * Counts {@code connection} in. At the limit, the connection that has waited longest without a
     * request being answered is closed to make room: a new client (a probe) is served rather than
     * one that sends nothing. False when every connection is being answered.
     */
    boolean admit(AdminConnection connection) {
      if (open.size() >= max) {
        AdminConnection longestWaiting =
            open.stream().filter(AdminConnection::waiting).findFirst().orElse(null);
        if (longestWaiting == null) {
          return false;
        }
        open.remove(longestWaiting);
        longestWaiting.evict();
      }
      open.add(connection);
      return true;
    }

    /** {@code connection} waits from now on: it is the last to give way. */
    void waiting(AdminConnection connection) {
      if (open.remove(connection)) {
        open.add(connection);
      }
    }

    void closed(AdminConnection connection) {
      open.remove(connection);
    }

    int count() {
      return open.size();
    }

    int max() {
      return max;
    }
  }
}
