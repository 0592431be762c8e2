package io.spinagent.plugin.http;

import io.netty.handler.codec.http.HttpRequest;
import java.time.Duration;
import java.util.Map;

/**
 * What a client of {@link NettyHttpServer} may take to send a request's line and headers, in bytes
 * and in time, and the settings that say so (named in the answers to clients over a limit).
 *
 * @param maxBytes the request line and headers together. The server answers 414 or 431 as soon as
 *     the line, or the headers, pass it, without waiting for the rest (curl, for one, sends 128 KiB
 *     of a request and waits for an answer before it sends more), and 431 when both together do
 * @param maxBytesSetting where {@code maxBytes} is configured
 * @param timeout from the connection's start, or the first byte of its next request, to the end of
 *     the headers; a client that is slower is answered 408
 * @param timeoutSetting where {@code timeout} is configured
 */
public record RequestHeadLimits(
    long maxBytes, String maxBytesSetting, Duration timeout, String timeoutSetting) {

  /** The size of a request's line and headers as they came, near enough (": " and CRLFs). */
  static long headBytes(HttpRequest request) {
    long bytes =
        (long) request.method().name().length()
            + request.uri().length()
            + request.protocolVersion().text().length()
            + 4;
    for (Map.Entry<String, String> header : request.headers()) {
      bytes += header.getKey().length() + header.getValue().length() + 4;
    }
    return bytes + 2;
  }

  /** What the answer to a client over {@link #maxBytes} says the limit is. */
  String limit() {
    return "the limit of "
        + maxBytes
        + " bytes for the request line and headers together ("
        + maxBytesSetting
        + ")";
  }
}
