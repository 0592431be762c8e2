package io.spinagent.plugin.ha;

import com.sun.net.httpserver.HttpExchange;
import io.micrometer.core.instrument.MeterRegistry;
import io.spinagent.common.HopByHopHeaders;
import io.spinagent.plugin.http.StatusResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relays a tunnel request to the replica that owns its account, over that replica's forwarding
 * endpoint. Both bodies stream: the request body is read from the client as the owner takes it, and
 * the response is written to the client as it arrives, so a watch streams through two replicas as
 * through one. A client going away closes the connection to the owner, which cancels the request at
 * the agent.
 */
public final class OwnerForwarder {

  private static final Logger log = LoggerFactory.getLogger(OwnerForwarder.class);
  private static final int CHUNK = 64 * 1024;

  /** Set by each hop itself (and refused by Java's HTTP client). */
  private static final Set<String> NOT_FORWARDED =
      HopByHopHeaders.and("expect", ForwardingEndpoint.SECRET_HEADER);

  private final HttpClient client;
  private final String sharedSecret;
  private final Duration headTimeout;
  private final MeterRegistry meters;

  /**
   * @param headTimeout how long to wait for the owner's response head: the owner answers 504 after
   *     {@code spinagent.operations.timeout} itself, so this is a little longer
   */
  public OwnerForwarder(HaProperties properties, Duration headTimeout, MeterRegistry meters) {
    this.client = ReplicaTls.httpClient(properties);
    this.sharedSecret = properties.getSharedSecret();
    this.headTimeout = headTimeout;
    this.meters = meters;
  }

  /**
   * Sends the exchange's request to {@code owner} and its answer back. False when the answer was
   * cut short after its head was sent: the caller must then drop the client's connection rather
   * than end the response, so the client sees the failure.
   */
  public boolean forward(HttpExchange exchange, AccountOwner owner)
      throws IOException, InterruptedException {
    HttpRequest request = request(exchange, owner);
    HttpResponse<InputStream> response;
    try {
      response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (HttpConnectTimeoutException | ConnectException e) {
      unavailable(exchange, owner, "cannot be reached (" + describe(e) + ")");
      return true;
    } catch (HttpTimeoutException e) {
      count("timeout");
      StatusResponse.send(
          exchange,
          504,
          "Timeout",
          "no answer for account '"
              + owner.account()
              + "' from replica '"
              + owner.replicaId()
              + "' ("
              + owner.forwardUrl()
              + ") within "
              + headTimeout.toSeconds()
              + "s");
      return true;
    } catch (IOException e) {
      unavailable(exchange, owner, "failed to answer (" + describe(e) + ")");
      return true;
    }
    count(Integer.toString(response.statusCode()));
    try (InputStream body = response.body()) {
      response
          .headers()
          .map()
          .forEach(
              (name, values) -> {
                if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT))) {
                  exchange.getResponseHeaders().put(name, List.copyOf(values));
                }
              });
      boolean empty =
          response.statusCode() == 204
              || response.statusCode() == 304
              || "HEAD".equals(exchange.getRequestMethod());
      exchange.sendResponseHeaders(response.statusCode(), empty ? -1 : 0);
      if (empty) {
        return true;
      }
      return copy(body, exchange.getResponseBody(), owner);
    }
  }

  /** Copies as bytes arrive; false when the owner's side broke off. */
  private boolean copy(InputStream from, OutputStream to, AccountOwner owner) {
    byte[] buffer = new byte[CHUNK];
    while (true) {
      int read;
      try {
        read = from.read(buffer);
      } catch (IOException e) {
        log.warn(
            "Forwarded request for account '{}' to replica '{}' broke off mid-response: {}",
            owner.account(),
            owner.replicaId(),
            describe(e));
        return false;
      }
      if (read < 0) {
        return true;
      }
      try {
        to.write(buffer, 0, read);
        to.flush();
      } catch (IOException clientGone) {
        // Closing the owner's stream (by the caller's try-with-resources) drops that connection,
        // and the owner cancels the request at the agent.
        return true;
      }
    }
  }

  private HttpRequest request(HttpExchange exchange, AccountOwner owner) {
    String query = exchange.getRequestURI().getRawQuery();
    URI uri =
        URI.create(
            owner.forwardUrl()
                + exchange.getRequestURI().getRawPath()
                + (query == null ? "" : "?" + query));
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(headTimeout);
    for (Map.Entry<String, List<String>> header : exchange.getRequestHeaders().entrySet()) {
      if (!NOT_FORWARDED.contains(header.getKey().toLowerCase(Locale.ROOT))) {
        header.getValue().forEach(value -> request.header(header.getKey(), value));
      }
    }
    request.header(ForwardingEndpoint.SECRET_HEADER, sharedSecret);
    return request.method(exchange.getRequestMethod(), body(exchange)).build();
  }

  private static HttpRequest.BodyPublisher body(HttpExchange exchange) {
    String length = exchange.getRequestHeaders().getFirst("Content-Length");
    boolean chunked = exchange.getRequestHeaders().getFirst("Transfer-Encoding") != null;
    if (!chunked && (length == null || "0".equals(length.trim()))) {
      return HttpRequest.BodyPublishers.noBody();
    }
    HttpRequest.BodyPublisher stream =
        HttpRequest.BodyPublishers.ofInputStream(exchange::getRequestBody);
    return chunked
        ? stream
        : HttpRequest.BodyPublishers.fromPublisher(stream, Long.parseLong(length.trim()));
  }

  private void unavailable(HttpExchange exchange, AccountOwner owner, String what)
      throws IOException {
    count("unreachable");
    String message =
        "account '"
            + owner.account()
            + "' is served by replica '"
            + owner.replicaId()
            + "' ("
            + owner.forwardUrl()
            + "), which "
            + what
            + "; its agent reconnects to another replica if it is gone";
    log.warn("Forwarding a request for account '{}': {}", owner.account(), message);
    StatusResponse.send(exchange, 503, "ServiceUnavailable", message);
  }

  private void count(String outcome) {
    meters.counter("spinagent.ha.forwarded.requests", "outcome", outcome).increment();
  }

  private static String describe(Throwable e) {
    return e.getMessage() == null
        ? e.getClass().getSimpleName()
        : e.getClass().getSimpleName() + ": " + e.getMessage();
  }
}
