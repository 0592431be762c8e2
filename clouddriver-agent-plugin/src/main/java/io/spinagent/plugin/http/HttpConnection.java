package io.spinagent.plugin.http;

import com.sun.net.httpserver.HttpHandler;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection of a {@link NettyHttpServer}, on its event loop: holds the client to the
 * {@link RequestHeadLimits} while a request's line and headers arrive, and refuses them over it
 * before any handler sees the request; refuses a declared body over the {@link RequestBodyLimit},
 * then hands the request to the handler on a thread of its own and feeds it the body. Once the
 * headers are in, no timeout applies: an answer may take as long as it takes (a watch, a long
 * apply). The connection reads the next request only when the current one has been answered (no
 * pipelining).
 */
final class HttpConnection extends ChannelInboundHandlerAdapter {

  private static final Logger log = LoggerFactory.getLogger(HttpConnection.class);

  /**
   * How long a refused client may go on sending (discarded) before the connection closes, so that
   * it reads the answer rather than a reset.
   */
  private static final long LINGER_MILLIS = 2_000;

  private final RequestHeadLimits limits;
  private final RequestBodyLimit bodyLimit;
  private final HttpHandler handler;
  private final Executor executor;
  private ChannelHandlerContext context;
  private ScheduledFuture<?> headDeadline;
  private boolean idle;
  private boolean headStarted;
  private boolean refused;
  private NettyExchange current;

  HttpConnection(
      RequestHeadLimits limits,
      RequestBodyLimit bodyLimit,
      HttpHandler handler,
      Executor executor) {
    this.limits = limits;
    this.bodyLimit = bodyLimit;
    this.handler = handler;
    this.executor = executor;
  }

  /** Goes before the HTTP codec: tells an idle connection from one whose next request began. */
  ChannelInboundHandlerAdapter firstBytes() {
    return new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        headStarted = true;
        ctx.fireChannelRead(msg);
      }
    };
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    context = ctx;
    awaitHead(false);
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    cancelHeadDeadline();
    if (current != null) {
      current.connectionClosed();
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (refused) {
        return;
      }
      if (msg instanceof HttpRequest request) {
        if (current != null) {
          log.debug(
              "{} pipelined a request; closing its connection", ctx.channel().remoteAddress());
          closeConnection();
          return;
        }
        cancelHeadDeadline();
        DecoderResult decoded = request.decoderResult();
        if (decoded.isFailure()) {
          refuseMalformed(decoded.cause());
          return;
        }
        long headBytes = RequestHeadLimits.headBytes(request);
        if (headBytes > limits.maxBytes()) {
          refuse(
              HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
              "RequestHeaderFieldsTooLarge",
              "the request's line and headers are " + headBytes + " bytes, over " + limits.limit());
          return;
        }
        long declaredBody;
        try {
          declaredBody = HttpUtil.getContentLength(request, -1L);
        } catch (NumberFormatException e) {
          refuse(HttpResponseStatus.BAD_REQUEST, "BadRequest", "malformed Content-Length");
          return;
        }
        if (declaredBody > bodyLimit.maxBytes()) {
          refuse(
              HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
              "RequestEntityTooLarge",
              bodyLimit.exceeded(declaredBody));
          return;
        }
        try {
          current = new NettyExchange(ctx.channel(), request, bodyLimit, this);
        } catch (IllegalArgumentException e) {
          refuse(
              HttpResponseStatus.BAD_REQUEST, "BadRequest", "malformed request: " + e.getMessage());
          return;
        }
        serve(current);
      }
      if (msg instanceof HttpContent content && current != null) {
        boolean last = content instanceof LastHttpContent;
        if (last) {
          // Nothing more is read until the answer ends: the next request waits in the socket.
          ctx.channel().config().setAutoRead(false);
        }
        current.bodyReceived(content.content(), last);
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug(
        "Closing the connection from {}: {}", ctx.channel().remoteAddress(), cause.toString());
    ChannelFuture unused = ctx.close();
  }

  /**
   * Called by the exchange, on its handler's thread, once its response has ended; {@code reusable}
   * when the connection may carry another request.
   */
  void exchangeEnded(boolean reusable) {
    context
        .executor()
        .execute(
            () -> {
              current = null;
              if (!reusable) {
                closeConnection();
                return;
              }
              awaitHead(true);
              context.channel().config().setAutoRead(true);
            });
  }

  /**
   * Called by the exchange, on its handler's thread, when its handler ended without answering
   * because the request body grew over the {@link RequestBodyLimit}.
   */
  void bodyTooLarge() {
    context
        .executor()
        .execute(
            () ->
                refuse(
                    HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                    "RequestEntityTooLarge",
                    bodyLimit.exceeded(-1)));
  }

  /**
   * Called by the exchange, on its handler's thread, when its handler failed: the connection is
   * dropped, unless the client is being answered {@code 413} already.
   */
  void exchangeFailed() {
    context
        .executor()
        .execute(
            () -> {
              if (!refused) {
                closeConnection();
              }
            });
  }

  private void serve(NettyExchange exchange) {
    try {
      executor.execute(
          () -> {
            try {
              handler.handle(exchange);
              exchange.close();
            } catch (IOException | RuntimeException e) {
              // As the JDK server does: the response is cut short, which the client sees.
              log.debug(
                  "{} {} failed: {}",
                  exchange.getRequestMethod(),
                  exchange.getRequestURI().getRawPath(),
                  e.toString());
              exchange.failed();
            }
          });
    } catch (RejectedExecutionException stopping) {
      closeConnection();
    }
  }

  private void awaitHead(boolean afterResponse) {
    idle = afterResponse;
    headStarted = false;
    headDeadline =
        context
            .executor()
            .schedule(this::headTimedOut, limits.timeout().toMillis(), TimeUnit.MILLISECONDS);
  }

  private void cancelHeadDeadline() {
    if (headDeadline != null) {
      headDeadline.cancel(false);
      headDeadline = null;
    }
  }

  private void headTimedOut() {
    headDeadline = null;
    SslHandler tls = context.pipeline().get(SslHandler.class);
    boolean handshaken = tls == null || tls.handshakeFuture().isSuccess();
    if (current != null || !context.channel().isActive()) {
      return;
    }
    if ((idle && !headStarted) || !handshaken) {
      // A kept-alive connection nobody uses, or a client that never finished TLS: nothing to
      // answer.
      closeConnection();
      return;
    }
    log.debug(
        "{} did not send a request's line and headers within {}",
        context.channel().remoteAddress(),
        limits.timeout());
    refuse(
        HttpResponseStatus.REQUEST_TIMEOUT,
        "RequestTimeout",
        "the request's line and headers did not arrive within "
            + limits.timeout().toMillis()
            + " ms ("
            + limits.timeoutSetting()
            + ")");
  }

  private void refuseMalformed(Throwable cause) {
    if (cause instanceof TooLongHttpHeaderException) {
      refuse(
          HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
          "RequestHeaderFieldsTooLarge",
          "the request's headers are over " + limits.limit());
    } else if (cause instanceof TooLongHttpLineException) {
      refuse(
          HttpResponseStatus.REQUEST_URI_TOO_LONG,
          "RequestURITooLong",
          "the request line is over " + limits.limit());
    } else {
      refuse(
          HttpResponseStatus.BAD_REQUEST,
          "BadRequest",
          "malformed HTTP request: " + cause.getMessage());
    }
  }

  /**
   * Answers with a Status and {@code Connection: close} at once, then reads and throws away what
   * the client still sends for {@link #LINGER_MILLIS}, and closes.
   */
  private void refuse(HttpResponseStatus status, String reason, String message) {
    refused = true;
    cancelHeadDeadline();
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            status,
            Unpooled.wrappedBuffer(StatusResponse.body(status.code(), reason, message)));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    response.headers().set(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    context.channel().config().setAutoRead(true);
    ChannelFuture written = context.writeAndFlush(response);
    written.addListener(
        done -> {
          ScheduledFuture<?> unused =
              context
                  .executor()
                  .schedule(this::closeConnection, LINGER_MILLIS, TimeUnit.MILLISECONDS);
        });
  }

  /** Closes the connection; nothing waits for it to be closed. */
  private void closeConnection() {
    ChannelFuture unused = context.close();
  }
}
