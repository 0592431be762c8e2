package io.spinagent.plugin.ha;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.spinagent.common.DaemonThreads;
import io.spinagent.plugin.http.NettyHttpServer;
import io.spinagent.plugin.http.RequestBodyLimit;
import io.spinagent.plugin.http.RequestHeadLimits;
import io.spinagent.plugin.http.StatusResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listener other replicas forward tunnel requests and account commands to ({@code
 * spinagent.ha.address:port}, TLS optional), on the plugin's {@link NettyHttpServer}: a client that
 * is slow to send a request's line and headers is answered 408, one whose headers or body are over
 * the limits 431/414 or 413, each naming its {@code spinagent.ha.*} setting. It admits only
 * requests carrying the shared secret, then hands tunnel requests ({@code /clusters/…}) to this
 * replica's tunnel and account commands ({@code /commands}) to its account commands; both serve
 * them from this replica's own agent sessions and never forward them again.
 */
public final class ForwardingEndpoint implements AutoCloseable {

  public static final String SECRET_HEADER = "X-SpinAgent-Forwarding-Secret";

  private static final Logger log = LoggerFactory.getLogger(ForwardingEndpoint.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PREFIX = "/clusters/";

  /** Where account commands are forwarded to. */
  public static final String COMMANDS_PATH = "/commands";

  private final byte[] secretDigest;
  private final MeterRegistry meters;
  private final NettyHttpServer server;
  private final String url;
  private volatile HttpHandler tunnel;
  private volatile HttpHandler commands;

  private ForwardingEndpoint(HaProperties properties, MeterRegistry meters) {
    this.secretDigest = digest(properties.getSharedSecret());
    this.meters = meters;
    InetSocketAddress address =
        new InetSocketAddress(properties.getAddress(), properties.getPort());
    boolean tls = properties.getTls().isEnabled();
    String host = advertisedHost(properties);
    RequestHeadLimits headLimits =
        new RequestHeadLimits(
            properties.getMaxHeaderSize().toBytes(),
            "spinagent.ha.max-header-size",
            properties.getHeaderTimeout(),
            "spinagent.ha.header-timeout");
    RequestBodyLimit bodyLimit =
        new RequestBodyLimit(
            properties.getMaxRequestBody().toBytes(), "spinagent.ha.max-request-body");
    // One thread per forwarded request: watches hold theirs for as long as they stream.
    ExecutorService handlers =
        Executors.newCachedThreadPool(DaemonThreads.numbered("spinagent-forwarded"));
    try {
      this.server =
          NettyHttpServer.start(
              "spinagent-forwarding",
              address,
              tls ? ReplicaTls.server(properties.getTls()) : null,
              headLimits,
              bodyLimit,
              this::admit,
              handlers);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "SpinAgent cannot open the replica forwarding endpoint on "
              + address
              + " (spinagent.ha.address / spinagent.ha.port): "
              + e.getMessage(),
          e);
    }
    this.url = (tls ? "https://" : "http://") + host + ":" + server.address().getPort();
  }

  public static ForwardingEndpoint start(HaProperties properties, MeterRegistry meters) {
    ForwardingEndpoint endpoint = new ForwardingEndpoint(properties, meters);
    log.info(
        "Replica forwarding endpoint listening on {}:{}, advertised as {}",
        properties.getAddress(),
        endpoint.server.address().getPort(),
        endpoint.url);
    return endpoint;
  }

  /** Where other replicas reach this one, as recorded with the accounts it owns. */
  public String url() {
    return url;
  }

  /** The tunnel that serves admitted requests; until it is set they are answered 503. */
  public void serveWith(HttpHandler tunnel) {
    this.tunnel = tunnel;
  }

  /** What serves admitted account commands; until it is set they are answered 503. */
  public void serveCommandsWith(HttpHandler commands) {
    this.commands = commands;
  }

  /** Stops listening, closes every connection and ends the forwarded requests in flight. */
  @Override
  public void close() {
    server.close();
  }

  private void admit(HttpExchange exchange) throws IOException {
    String presented = exchange.getRequestHeaders().getFirst(SECRET_HEADER);
    // Digests first, so the comparison takes the same time whatever the presented length.
    if (presented == null || !MessageDigest.isEqual(secretDigest, digest(presented))) {
      meters.counter("spinagent.ha.forwarded.received", "outcome", "unauthorized").increment();
      log.warn(
          "Refused a forwarded request from {}: {} missing or not spinagent.ha.shared-secret",
          exchange.getRemoteAddress(),
          SECRET_HEADER);
      try (exchange) {
        StatusResponse.send(
            exchange,
            401,
            "Unauthorized",
            "forwarding between replicas needs the shared secret (spinagent.ha.shared-secret) in "
                + SECRET_HEADER);
      }
      return;
    }
    String path = exchange.getRequestURI().getRawPath();
    HttpHandler target;
    String what;
    if (path != null && path.startsWith(PREFIX)) {
      target = tunnel;
      what = "tunnel";
    } else if (COMMANDS_PATH.equals(path)) {
      target = commands;
      what = "account command handler";
    } else {
      try (exchange) {
        StatusResponse.send(
            exchange,
            404,
            "NotFound",
            "the forwarding endpoint serves "
                + PREFIX
                + "… and "
                + COMMANDS_PATH
                + ", not "
                + path);
      }
      return;
    }
    if (target == null) {
      try (exchange) {
        StatusResponse.send(
            exchange, 503, "ServiceUnavailable", "the " + what + " of this replica is not running");
      }
      return;
    }
    if (COMMANDS_PATH.equals(path)
        && "POST".equals(exchange.getRequestMethod())
        && !isCommand(exchange)) {
      return;
    }
    meters.counter("spinagent.ha.forwarded.received", "outcome", "accepted").increment();
    target.handle(exchange);
  }

  /**
   * Whether the body of a request to {@link #COMMANDS_PATH} is a JSON object, as every account
   * command is; otherwise it is answered 400 here. The body, at most {@code
   * spinagent.ha.max-request-body}, is read whole and handed on as it came.
   */
  private static boolean isCommand(HttpExchange exchange) throws IOException {
    byte[] body = exchange.getRequestBody().readAllBytes();
    String problem;
    try {
      JsonNode command = JSON.readTree(body);
      if (command != null && command.isObject()) {
        exchange.setStreams(new ByteArrayInputStream(body), null);
        return true;
      }
      problem =
          command == null || command.isMissingNode()
              ? "empty"
              : command.getNodeType().name().toLowerCase(Locale.ROOT);
    } catch (JsonProcessingException e) {
      problem = "not JSON: " + e.getOriginalMessage();
    }
    try (exchange) {
      StatusResponse.send(
          exchange,
          400,
          "BadRequest",
          "an account command is a JSON object; this one is " + problem);
    }
    return false;
  }

  private static String advertisedHost(HaProperties properties) {
    String host = properties.getAdvertiseAddress();
    try {
      if (host.isBlank()) {
        host = InetAddress.getLocalHost().getHostAddress();
      }
      return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    } catch (UnknownHostException e) {
      throw new IllegalStateException(
          "SpinAgent cannot tell which address other replicas reach this one on;"
              + " set spinagent.ha.advertise-address: "
              + e.getMessage(),
          e);
    }
  }

  private static byte[] digest(String secret) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
