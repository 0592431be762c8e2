package io.spinagent.plugin.ha;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.spinagent.common.DaemonThreads;
import io.spinagent.plugin.http.Backlog;
import io.spinagent.plugin.http.SlowClients;
import io.spinagent.plugin.http.StatusResponse;
import io.spinagent.plugin.http.TcpNoDelay;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listener other replicas forward tunnel requests and account commands to ({@code
 * spinagent.ha.address:port}, TLS optional). It admits only requests carrying the shared secret,
 * then hands tunnel requests ({@code /clusters/…}) to this replica's tunnel and account commands
 * ({@code /commands}) to its account commands; both serve them from this replica's own agent
 * sessions and never forward them again.
 */
public final class ForwardingEndpoint implements AutoCloseable {

  public static final String SECRET_HEADER = "X-SpinAgent-Forwarding-Secret";

  private static final Logger log = LoggerFactory.getLogger(ForwardingEndpoint.class);
  private static final String PREFIX = "/clusters/";

  /** Where account commands are forwarded to. */
  public static final String COMMANDS_PATH = "/commands";

  private final HttpServer server;
  private final ExecutorService executor;
  private final String url;
  private final byte[] secretDigest;
  private final MeterRegistry meters;
  private volatile HttpHandler tunnel;
  private volatile HttpHandler commands;

  private ForwardingEndpoint(
      HttpServer server,
      ExecutorService executor,
      String url,
      byte[] secretDigest,
      MeterRegistry meters) {
    this.server = server;
    this.executor = executor;
    this.url = url;
    this.secretDigest = secretDigest;
    this.meters = meters;
  }

  public static ForwardingEndpoint start(HaProperties properties, MeterRegistry meters) {
    InetSocketAddress address =
        new InetSocketAddress(properties.getAddress(), properties.getPort());
    boolean tls = properties.getTls().isEnabled();
    HttpServer server;
    TcpNoDelay.enable();
    SlowClients.disconnect();
    try {
      if (tls) {
        HttpsServer https = HttpsServer.create(address, Backlog.CONNECTIONS);
        https.setHttpsConfigurator(new HttpsConfigurator(ReplicaTls.server(properties.getTls())));
        server = https;
      } else {
        server = HttpServer.create(address, Backlog.CONNECTIONS);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "SpinAgent cannot open the replica forwarding endpoint on "
              + address
              + " (spinagent.ha.address / spinagent.ha.port): "
              + e.getMessage(),
          e);
    }
    // One thread per forwarded request: watches hold theirs for as long as they stream.
    ExecutorService executor =
        Executors.newCachedThreadPool(DaemonThreads.numbered("spinagent-forwarded"));
    String url =
        (tls ? "https://" : "http://")
            + advertisedHost(properties)
            + ":"
            + server.getAddress().getPort();
    ForwardingEndpoint endpoint =
        new ForwardingEndpoint(server, executor, url, digest(properties.getSharedSecret()), meters);
    server.createContext(PREFIX, exchange -> endpoint.admit(exchange, endpoint.tunnel, "tunnel"));
    server.createContext(
        COMMANDS_PATH,
        exchange -> endpoint.admit(exchange, endpoint.commands, "account command handler"));
    server.setExecutor(executor);
    server.start();
    log.info(
        "Replica forwarding endpoint listening on {}:{}, advertised as {}",
        properties.getAddress(),
        server.getAddress().getPort(),
        url);
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

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  private void admit(HttpExchange exchange, HttpHandler target, String what) throws IOException {
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
    if (target == null) {
      try (exchange) {
        StatusResponse.send(
            exchange, 503, "ServiceUnavailable", "the " + what + " of this replica is not running");
      }
      return;
    }
    meters.counter("spinagent.ha.forwarded.received", "outcome", "accepted").increment();
    target.handle(exchange);
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
