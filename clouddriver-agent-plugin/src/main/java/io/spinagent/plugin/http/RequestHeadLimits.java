package io.spinagent.plugin.http;

import com.sun.net.httpserver.HttpExchange;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What a client of {@link NettyHttpServer} may take to send a request's line and headers, in bytes
 * and in time, and the settings that say so (named in the answers to clients over a limit).
 *
 * @param maxBytes the request line and headers together, which the handler holds requests to (with
 *     {@link #headBytes}); the server itself stops reading a request line, or headers, at twice
 *     this and answers 414 or 431
 * @param maxBytesSetting where {@code maxBytes} is configured
 * @param timeout from the connection's start, or the first byte of its next request, to the end of
 *     the headers; a client that is slower is answered 408
 * @param timeoutSetting where {@code timeout} is configured
 */
public record RequestHeadLimits(
    long maxBytes, String maxBytesSetting, Duration timeout, String timeoutSetting) {

  /** The size of a request's line and headers as they came, near enough (": " and CRLFs). */
  public static long headBytes(HttpExchange exchange) {
    long bytes =
        (long) exchange.getRequestMethod().length()
            + exchange.getRequestURI().toString().length()
            + 11;
    for (Map.Entry<String, List<String>> header : exchange.getRequestHeaders().entrySet()) {
      for (String value : header.getValue()) {
        bytes += header.getKey().length() + value.length() + 4;
      }
    }
    return bytes;
  }
}
