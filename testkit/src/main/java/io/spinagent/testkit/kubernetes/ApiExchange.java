package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One HTTP request and its response, in the terms the API needs: decoded path segments, query
 * parameters, headers, the body, and JSON/text/streaming responses.
 *
 * <p>An exchange normally ends when its handler returns. A watch instead {@linkplain #detach()
 * detaches} it: the handler returns, the {@link WatchPump} writes the stream from then on, and
 * {@link #complete()} ends it.
 */
final class ApiExchange {

  private final HttpExchange exchange;
  private final String pathPrefix;
  private final List<String> segments;
  private final Map<String, String> query;
  private byte[] body;
  private boolean responded;
  private int status;
  private boolean watchExpired;
  private String user;
  private volatile boolean detached;
  private final AtomicBoolean completed = new AtomicBoolean();
  private final AtomicBoolean answered = new AtomicBoolean();
  private Runnable onAnswered = () -> {};

  /**
   * @param pathPrefix the part of the request path that chose the cluster (empty for a server of
   *     its own, {@code /clusters/<name>} in a {@link KubernetesApiFleet}); the API sees the rest
   */
  ApiExchange(HttpExchange exchange, String pathPrefix) {
    this.exchange = exchange;
    this.pathPrefix = pathPrefix;
    this.segments =
        decodeSegments(exchange.getRequestURI().getRawPath().substring(pathPrefix.length()));
    this.query = decodeQuery(exchange.getRequestURI().getRawQuery());
  }

  String method() {
    return exchange.getRequestMethod().toUpperCase(Locale.ROOT);
  }

  /** The path within the cluster (without the fleet's prefix). */
  String path() {
    return exchange.getRequestURI().getPath().substring(pathPrefix.length());
  }

  /** Path (within the cluster) and query as sent, for the request log. */
  String uri() {
    return exchange.getRequestURI().toString().substring(pathPrefix.length());
  }

  int status() {
    return status;
  }

  void user(String user) {
    this.user = user;
  }

  String user() {
    return user;
  }

  void markWatchExpired() {
    watchExpired = true;
  }

  boolean watchExpired() {
    return watchExpired;
  }

  /** Path segments without empty ones: "/apis/apps/v1" is [apis, apps, v1]. */
  List<String> segments() {
    return segments;
  }

  String query(String name) {
    return query.get(name);
  }

  boolean flag(String name) {
    String value = query.get(name);
    return value != null && (value.equalsIgnoreCase("true") || value.equals("1"));
  }

  long longQuery(String name) {
    String value = query.get(name);
    if (value == null || value.isEmpty()) {
      return 0;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw ApiError.badRequest("invalid value for " + name + ": " + value);
    }
  }

  String header(String name) {
    return exchange.getRequestHeaders().getFirst(name);
  }

  byte[] body() {
    if (body == null) {
      try {
        body = exchange.getRequestBody().readAllBytes();
      } catch (IOException e) {
        throw ApiError.badRequest("could not read the request body: " + e.getMessage());
      }
    }
    return body;
  }

  boolean hasResponded() {
    return responded;
  }

  void sendJson(int code, JsonNode json) throws IOException {
    send(code, "application/json", Json.bytes(json));
  }

  /** A JSON document of a negotiated type (e.g. aggregated discovery), varying by Accept. */
  void sendJson(int code, JsonNode json, String contentType) throws IOException {
    exchange.getResponseHeaders().set("Vary", "Accept");
    send(code, contentType, Json.bytes(json));
  }

  void sendText(int code, String text) throws IOException {
    send(code, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
  }

  void sendError(ApiError error) throws IOException {
    if (error.code() == 429 || error.code() == 503) {
      exchange.getResponseHeaders().set("Retry-After", "1");
    }
    sendJson(error.code(), error.toStatus());
  }

  private void send(int code, String contentType, byte[] bytes) throws IOException {
    body(); // drain the request so the connection can be reused
    responded = true;
    status = code;
    // Before the client can read the answer, so a test that has it also finds it in the log.
    answered();
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.getResponseHeaders().set("Cache-Control", "no-cache, private");
    exchange.sendResponseHeaders(code, bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /**
   * Starts a chunked response (watches); the caller writes and flushes, then calls {@link
   * #complete()}.
   */
  OutputStream startStream(String contentType) throws IOException {
    body();
    responded = true;
    status = 200;
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.getResponseHeaders().set("Cache-Control", "no-cache, private");
    exchange.sendResponseHeaders(200, 0);
    return exchange.getResponseBody();
  }

  /**
   * Runs {@code action} once the exchange is answered: a whole response just before it is sent, a
   * streamed one (a watch) when it is {@linkplain #complete() complete}.
   */
  void whenAnswered(Runnable action) {
    this.onAnswered = action;
  }

  private void answered() {
    if (answered.compareAndSet(false, true)) {
      onAnswered.run();
    }
  }

  /** Hands the response over to another thread: the handler's return no longer ends it. */
  void detach() {
    detached = true;
  }

  boolean isDetached() {
    return detached;
  }

  /** Ends the exchange (the response, and the request if unread); safe to call twice. */
  void complete() {
    if (!completed.compareAndSet(false, true)) {
      return;
    }
    try {
      exchange.close();
    } finally {
      answered();
    }
  }

  private static List<String> decodeSegments(String rawPath) {
    if (rawPath == null) {
      return List.of();
    }
    List<String> segments = new ArrayList<>();
    for (String segment : rawPath.split("/", 0)) {
      if (!segment.isEmpty()) {
        // Path segments are not form-encoded: a '+' is a plus.
        segments.add(URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8));
      }
    }
    return Collections.unmodifiableList(segments);
  }

  private static Map<String, String> decodeQuery(String rawQuery) {
    Map<String, String> query = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return query;
    }
    for (String pair : rawQuery.split("&", 0)) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name =
          URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String value =
          eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      query.putIfAbsent(name, value);
    }
    return query;
  }
}
