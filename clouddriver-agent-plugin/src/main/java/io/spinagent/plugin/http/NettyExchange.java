package io.spinagent.plugin.http;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One request on a {@link NettyHttpServer} connection, seen by its handler as the JDK's {@link
 * HttpExchange}, so that handlers (the tunnel, the forwarding to other replicas) serve it exactly
 * as they serve the JDK server's. The handler runs on a thread of its own and blocks as with the
 * JDK server: reading the body waits for the client, writing waits until the connection took the
 * bytes, so a client that reads slowly slows its handler (and, through the tunnel's credit, the
 * agent) rather than filling memory.
 */
final class NettyExchange extends HttpExchange {

  /** Request body bytes buffered ahead of the handler before the connection stops reading. */
  private static final int BODY_HIGH_WATER = 256 * 1024;

  private final Channel channel;
  private final HttpRequest request;
  private final RequestBodyLimit bodyLimit;
  private final URI uri;
  private final HttpConnection connection;
  private final Headers requestHeaders = new Headers();
  private final Headers responseHeaders = new Headers();
  private final Map<String, Object> attributes = new ConcurrentHashMap<>();
  private final RequestBody requestBody = new RequestBody();
  private final ResponseBody responseBody = new ResponseBody();

  /** What the handler reads and writes: the bodies, or what {@link #setStreams} put over them. */
  private volatile InputStream requestStream = requestBody;

  private volatile OutputStream responseStream = responseBody;
  private volatile int responseCode = -1;
  private boolean responseEnded;
  private ChannelFuture lastWrite;

  /**
   * @throws IllegalArgumentException if the request target is not a URI
   */
  NettyExchange(
      Channel channel, HttpRequest request, RequestBodyLimit bodyLimit, HttpConnection connection) {
    this.channel = channel;
    this.request = request;
    this.bodyLimit = bodyLimit;
    this.uri = URI.create(request.uri());
    this.connection = connection;
    request.headers().forEach(header -> requestHeaders.add(header.getKey(), header.getValue()));
  }

  @Override
  public Headers getRequestHeaders() {
    return requestHeaders;
  }

  @Override
  public Headers getResponseHeaders() {
    return responseHeaders;
  }

  @Override
  public URI getRequestURI() {
    return uri;
  }

  @Override
  public String getRequestMethod() {
    return request.method().name();
  }

  /** None: a {@link NettyHttpServer} has one handler for every path. */
  @Override
  public HttpContext getHttpContext() {
    return null;
  }

  /** Ends the response (if the handler has not) and hands the connection to its next request. */
  @Override
  public void close() {
    try {
      responseBody.close();
    } catch (IOException clientGone) {
      ChannelFuture unused = channel.close();
    }
  }

  @Override
  public InputStream getRequestBody() {
    return requestStream;
  }

  @Override
  public OutputStream getResponseBody() {
    return responseStream;
  }

  /**
   * As the JDK's: {@code length} above 0 is the body's length, 0 a chunked body of any length, -1
   * no body.
   */
  @Override
  public void sendResponseHeaders(int code, long length) throws IOException {
    if (responseCode != -1) {
      throw new IOException("the response's headers were sent already");
    }
    responseCode = code;
    HttpResponse response =
        new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(code));
    for (Map.Entry<String, List<String>> header : responseHeaders.entrySet()) {
      response.headers().add(header.getKey(), header.getValue());
    }
    boolean bodiless =
        request.method().equals(HttpMethod.HEAD) || code == 204 || code == 304 || code < 200;
    if (length > 0) {
      HttpUtil.setContentLength(response, length);
    } else if (length == 0) {
      HttpUtil.setTransferEncodingChunked(response, true);
    } else if (!bodiless) {
      HttpUtil.setContentLength(response, 0);
    }
    if (!HttpUtil.isKeepAlive(request)) {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    // Flushed at once: a watch's client waits for the head before any event comes.
    lastWrite = channel.writeAndFlush(response);
    if (length < 0) {
      responseBody.close();
    }
  }

  @Override
  public InetSocketAddress getRemoteAddress() {
    return (InetSocketAddress) channel.remoteAddress();
  }

  @Override
  public int getResponseCode() {
    return responseCode;
  }

  @Override
  public InetSocketAddress getLocalAddress() {
    return (InetSocketAddress) channel.localAddress();
  }

  @Override
  public String getProtocol() {
    return request.protocolVersion().text();
  }

  @Override
  public Object getAttribute(String name) {
    return attributes.get(name);
  }

  @Override
  public void setAttribute(String name, Object value) {
    if (value == null) {
      attributes.remove(name);
    } else {
      attributes.put(name, value);
    }
  }

  /**
   * As the JDK's: what {@link #getRequestBody} and {@link #getResponseBody} return from now on,
   * streams that wrap (or replay) the bodies; null leaves one as it is.
   */
  @Override
  public void setStreams(InputStream in, OutputStream out) {
    if (in != null) {
      requestStream = in;
    }
    if (out != null) {
      responseStream = out;
    }
  }

  @Override
  public HttpPrincipal getPrincipal() {
    return null;
  }

  /** Called on the connection's event loop with each part of the request body. */
  void bodyReceived(ByteBuf content, boolean last) {
    requestBody.offer(content, last);
  }

  /**
   * Called by the connection, on the handler's thread, when the handler failed: a request whose
   * body grew over the limit, and which was not answered, is answered {@code 413}; any other
   * failure drops the connection.
   */
  void failed() {
    if (responseCode == -1 && requestBody.overLimit()) {
      close();
    } else {
      connection.exchangeFailed();
    }
  }

  /** Called on the connection's event loop when the connection has ended. */
  void connectionClosed() {
    requestBody.fail();
  }

  private void await(ChannelFuture write) throws IOException {
    try {
      write.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while writing the response");
    }
    if (!write.isSuccess()) {
      throw new IOException("the client's connection ended: " + write.cause(), write.cause());
    }
  }

  /**
   * The request body as it arrives, buffered up to a high-water mark; past the body limit, what
   * arrives is discarded and reading fails.
   */
  private final class RequestBody extends InputStream {

    private final ArrayDeque<byte[]> parts = new ArrayDeque<>();
    private byte[] reading;
    private int position;
    private long buffered;
    private long received;
    private boolean ended;
    private boolean failed;
    private boolean overLimit;

    synchronized void offer(ByteBuf content, boolean last) {
      if (overLimit) {
        return;
      }
      received += content.readableBytes();
      if (received > bodyLimit.maxBytes()) {
        overLimit = true;
        parts.clear();
        reading = null;
        buffered = 0;
        channel.config().setAutoRead(true);
        notifyAll();
        return;
      }
      if (content.isReadable()) {
        byte[] bytes = new byte[content.readableBytes()];
        content.readBytes(bytes);
        parts.add(bytes);
        buffered += bytes.length;
        if (buffered >= BODY_HIGH_WATER) {
          channel.config().setAutoRead(false);
        }
      }
      ended |= last;
      notifyAll();
    }

    synchronized void fail() {
      failed = !ended;
      notifyAll();
    }

    /** Whether the whole body arrived, so the connection can carry another request. */
    synchronized boolean ended() {
      return ended;
    }

    /** Whether the body grew over the limit (what is left of it is discarded as it arrives). */
    synchronized boolean overLimit() {
      return overLimit;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public synchronized int read(byte[] into, int offset, int length) throws IOException {
      if (length == 0) {
        return 0;
      }
      while (reading == null || position == reading.length) {
        if (overLimit) {
          throw new IOException(bodyLimit.exceeded(-1));
        }
        reading = parts.poll();
        position = 0;
        if (reading != null) {
          continue;
        }
        if (ended) {
          return -1;
        }
        if (failed) {
          throw new IOException("the client's connection ended before the request body did");
        }
        try {
          wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while reading the request body");
        }
      }
      int count = Math.min(length, reading.length - position);
      System.arraycopy(reading, position, into, offset, count);
      position += count;
      buffered -= count;
      if (buffered < BODY_HIGH_WATER / 2 && !ended && !channel.config().isAutoRead()) {
        channel.config().setAutoRead(true);
      }
      return count;
    }
  }

  /** The response body: each write is a part of it, each flush waits until the client took it. */
  private final class ResponseBody extends OutputStream {

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public synchronized void write(byte[] bytes, int offset, int length) throws IOException {
      if (responseCode == -1 || responseEnded) {
        throw new IOException(
            responseEnded ? "the response has ended" : "the response's headers were not sent");
      }
      if (length > 0) {
        lastWrite =
            channel.write(new DefaultHttpContent(Unpooled.copiedBuffer(bytes, offset, length)));
        if (!channel.isWritable()) {
          // A handler that writes without flushing must not pile the response up in memory.
          flush();
        }
      }
    }

    @Override
    public synchronized void flush() throws IOException {
      if (lastWrite != null) {
        channel.flush();
        await(lastWrite);
      }
    }

    /** Ends the response; the connection then serves its next request or closes. */
    @Override
    public synchronized void close() throws IOException {
      if (responseEnded) {
        return;
      }
      responseEnded = true;
      if (responseCode == -1) {
        if (requestBody.overLimit()) {
          connection.bodyTooLarge();
        } else {
          ChannelFuture unused = channel.close();
        }
        return;
      }
      ChannelFuture end = channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
      await(end);
      connection.exchangeEnded(HttpUtil.isKeepAlive(request) && requestBody.ended());
    }
  }
}
