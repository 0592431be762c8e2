package io.spinagent.plugin.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Answers of the tunnel itself, as Kubernetes {@code Status} objects so that kubectl prints their
 * message.
 */
public final class StatusResponse {

  private static final ObjectMapper JSON = new ObjectMapper();

  private StatusResponse() {}

  public static void send(HttpExchange exchange, int code, String reason, String message)
      throws IOException {
    byte[] bytes = body(code, reason, message);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(code, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  /** The {@code Status} object as JSON ({@code application/json}). */
  static byte[] body(int code, String reason, String message) {
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("kind", "Status");
    status.put("apiVersion", "v1");
    status.put("metadata", Map.of());
    status.put("status", "Failure");
    status.put("message", message);
    status.put("reason", reason);
    status.put("code", code);
    try {
      return JSON.writeValueAsBytes(status);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
