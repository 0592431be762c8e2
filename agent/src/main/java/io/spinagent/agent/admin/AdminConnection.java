package io.spinagent.agent.admin;

import io.grpc.netty.shaded.io.netty.buffer.Unpooled;
import io.grpc.netty.shaded.io.netty.channel.ChannelFuture;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.handler.codec.DecoderResult;
import io.grpc.netty.shaded.io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.grpc.netty.shaded.io.netty.handler.codec.http.FullHttpResponse;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpContent;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpHeaderNames;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpMethod;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpRequest;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpResponseStatus;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpUtil;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpVersion;
import io.grpc.netty.shaded.io.netty.handler.codec.http.LastHttpContent;
import io.grpc.netty.shaded.io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.grpc.netty.shaded.io.netty.handler.codec.http.TooLongHttpLineException;
import io.grpc.netty.shaded.io.netty.util.ReferenceCountUtil;
import io.spinagent.agent.config.ServerConfig;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection of an {@link AdminHttpServer}, on its event loop: holds the client to the
 * limits while a request arrives, hands the request to the {@link AdminHttpServer.Responder} and
 * writes its answer, then waits for the next request or closes. A client that is refused is
 * answered with a JSON error naming the limit and {@code Connection: close}; what it still sends is
 * read and thrown away for a moment, so that it reads the answer rather than a reset.
 */
final class AdminConnection extends ChannelInboundHandlerAdapter {

  private static final Logger log = LoggerFactory.getLogger(AdminConnection.class);

  /** Request bodies, which no admin path takes, are read and thrown away up to this; then 413. */
  static final int MAX_BODY_BYTES = 64 * 1024;

  /** How long a refused client may go on sending before its connection closes. */
  private static final Duration LINGER = Duration.ofSeconds(1);

  private enum State {
    /** A new connection, or one whose next request has begun: the header timeout runs. */
    RECEIVING,
    /** Kept alive after an answer, no byte of a next request yet: the idle timeout runs. */
    IDLE,
    /** A request is being answered; nothing more is read until it is. */
    ANSWERING,
    /** Refused or given way: closes soon, whatever comes is thrown away. */
    CLOSING
  }

  private final ServerConfig limits;
  private final AdminHttpServer.Connections connections;
  private final AdminHttpServer.Responder responder;
  private ChannelHandlerContext context;
  private State state = State.RECEIVING;
  private ScheduledFuture<?> deadline;
  private HttpRequest receiving;
  private long bodyBytes;

  AdminConnection(
      ServerConfig limits,
      AdminHttpServer.Connections connections,
      AdminHttpServer.Responder responder) {
    this.limits = limits;
    this.connections = connections;
    this.responder = responder;
  }

  /** Goes before the HTTP codec: the first byte of a kept-alive connection's next request. */
  ChannelInboundHandlerAdapter firstBytes() {
    return new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (state == State.IDLE) {
          receive();
        }
        ctx.fireChannelRead(msg);
      }
    };
  }

  /** Whether this connection may give way to a new one: no request of it is being answered. */
  boolean waiting() {
    return state != State.ANSWERING;
  }

  /** Closes this connection to make room for a new one. */
  void evict() {
    log.debug(
        "Closing the connection from {}, which sent no request, to make room (server.maxConnections"
            + " {})",
        context.channel().remoteAddress(),
        connections.max());
    state = State.CLOSING;
    cancelDeadline();
    closeConnection();
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    context = ctx;
    if (!connections.admit(this)) {
      refuse(
          HttpResponseStatus.SERVICE_UNAVAILABLE,
          "all "
              + connections.max()
              + " connections (server.maxConnections) have a request being answered; try again");
      return;
    }
    receive();
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    cancelDeadline();
    connections.closed(this);
    ctx.fireChannelInactive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (state == State.CLOSING) {
        return;
      }
      if (msg instanceof HttpRequest request) {
        if (state == State.ANSWERING) {
          log.debug(
              "{} sent a request before its last was answered", ctx.channel().remoteAddress());
          state = State.CLOSING;
          closeConnection();
          return;
        }
        DecoderResult decoded = request.decoderResult();
        if (decoded.isFailure()) {
          refuseMalformed(decoded.cause());
          return;
        }
        receiving = request;
        bodyBytes = 0;
      }
      if (msg instanceof HttpContent content && receiving != null) {
        bodyBytes += content.content().readableBytes();
        if (bodyBytes > MAX_BODY_BYTES) {
          refuse(
              HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
              "the admin paths take no request body; this one is over "
                  + MAX_BODY_BYTES
                  + " bytes");
          return;
        }
        if (content instanceof LastHttpContent) {
          HttpRequest request = receiving;
          receiving = null;
          answer(request);
        }
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug(
        "Closing the connection from {}: {}", ctx.channel().remoteAddress(), cause.toString());
    state = State.CLOSING;
    closeConnection();
  }

  private void receive() {
    state = State.RECEIVING;
    schedule(limits.headerTimeout(), this::timedOut);
  }

  private void answer(HttpRequest request) {
    cancelDeadline();
    state = State.ANSWERING;
    // Nothing more is read until the answer is written: a client gets one request at a time.
    context.channel().config().setAutoRead(false);
    boolean keepAlive = HttpUtil.isKeepAlive(request);
    boolean head = HttpMethod.HEAD.equals(request.method());
    if (!head && !HttpMethod.GET.equals(request.method())) {
      write(
          AdminServer.Reply.error(
              405, request.method() + " is not served; the admin paths answer GET and HEAD"),
          keepAlive,
          false);
      return;
    }
    CompletionStage<AdminServer.Reply> reply;
    try {
      URI target = new URI(request.uri());
      reply =
          responder.answer(target.getPath() == null ? "" : target.getPath(), target.getRawQuery());
    } catch (URISyntaxException e) {
      reply =
          CompletableFuture.completedFuture(
              AdminServer.Reply.error(400, "the request target is not a URI: " + e.getReason()));
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    CompletionStage<?> unused =
        reply.whenComplete(
            (answer, failure) -> {
              try {
                context
                    .executor()
                    .execute(() -> answered(request, answer, failure, keepAlive, head));
              } catch (RejectedExecutionException stopping) {
                // The server is closing, and the connection with it.
              }
            });
  }

  private void answered(
      HttpRequest request,
      AdminServer.Reply answer,
      Throwable failure,
      boolean keepAlive,
      boolean head) {
    if (failure != null) {
      log.warn("{} {} failed", request.method(), request.uri(), failure);
      answer = AdminServer.Reply.error(500, "the agent failed to answer: " + failure);
    }
    write(answer, keepAlive, head);
  }

  private void write(AdminServer.Reply reply, boolean keepAlive, boolean head) {
    if (!context.channel().isActive()) {
      return;
    }
    FullHttpResponse response = response(reply, head);
    HttpUtil.setKeepAlive(response, keepAlive);
    if (reply.status() == 405) {
      response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
    }
    ChannelFuture unused =
        context
            .writeAndFlush(response)
            .addListener(
                written -> {
                  if (!written.isSuccess() || !keepAlive) {
                    state = State.CLOSING;
                    closeConnection();
                    return;
                  }
                  state = State.IDLE;
                  connections.waiting(this);
                  schedule(limits.idleTimeout(), this::idleTimedOut);
                  context.channel().config().setAutoRead(true);
                });
  }

  private static FullHttpResponse response(AdminServer.Reply reply, boolean head) {
    byte[] body = reply.body().getBytes(StandardCharsets.UTF_8);
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.valueOf(reply.status()),
            head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
    response
        .headers()
        .set(
            HttpHeaderNames.CONTENT_TYPE,
            reply.contentType().contains("charset")
                ? reply.contentType()
                : reply.contentType() + "; charset=utf-8");
    response.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
    return response;
  }

  private void timedOut() {
    deadline = null;
    if (state != State.RECEIVING) {
      return;
    }
    log.debug(
        "{} did not send a request within {}",
        context.channel().remoteAddress(),
        limits.headerTimeout());
    refuse(
        HttpResponseStatus.REQUEST_TIMEOUT,
        "the request did not arrive within "
            + limits.headerTimeout().toMillis()
            + " ms (server.headerTimeout)");
  }

  private void idleTimedOut() {
    deadline = null;
    if (state == State.IDLE) {
      // Silently: a 408 here could cross the client's next request and be taken for its answer.
      state = State.CLOSING;
      closeConnection();
    }
  }

  private void refuseMalformed(Throwable cause) {
    if (cause instanceof TooLongHttpHeaderException) {
      refuse(
          HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
          "the request's headers are over "
              + AdminHttpServer.MAX_HEAD_BYTES
              + " bytes, the limit of the admin port");
    } else if (cause instanceof TooLongHttpLineException) {
      refuse(
          HttpResponseStatus.REQUEST_URI_TOO_LONG,
          "the request line is over "
              + AdminHttpServer.MAX_HEAD_BYTES
              + " bytes, the limit of the admin port");
    } else {
      refuse(HttpResponseStatus.BAD_REQUEST, "malformed HTTP request: " + cause.getMessage());
    }
  }

  /** Answers with a JSON error and closes, throwing away whatever the client still sends. */
  private void refuse(HttpResponseStatus status, String message) {
    state = State.CLOSING;
    cancelDeadline();
    FullHttpResponse response = response(AdminServer.Reply.error(status.code(), message), false);
    HttpUtil.setKeepAlive(response, false);
    context.channel().config().setAutoRead(true);
    ChannelFuture unused = context.writeAndFlush(response).addListener(written -> closeLater());
  }

  /** Closes the connection once the client had {@link #LINGER} to read the answer. */
  private void closeLater() {
    ScheduledFuture<?> unused =
        context
            .executor()
            .schedule(this::closeConnection, LINGER.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Closes the connection; nothing waits for it to be closed. */
  private void closeConnection() {
    ChannelFuture unused = context.close();
  }

  private void schedule(Duration delay, Runnable task) {
    cancelDeadline();
    deadline = context.executor().schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void cancelDeadline() {
    if (deadline != null) {
      deadline.cancel(false);
      deadline = null;
    }
  }
}
