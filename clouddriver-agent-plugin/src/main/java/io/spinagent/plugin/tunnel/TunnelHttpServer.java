package io.spinagent.plugin.tunnel;

import com.google.protobuf.ByteString;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import io.spinagent.common.DaemonThreads;
import io.spinagent.common.HopByHopHeaders;
import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.grpc.session.AgentSession;
import io.spinagent.plugin.grpc.session.SessionRegistry;
import io.spinagent.plugin.ha.ForwardingEndpoint;
import io.spinagent.plugin.http.NettyHttpServer;
import io.spinagent.plugin.http.RequestHeadLimits;
import io.spinagent.plugin.http.StatusResponse;
import io.spinagent.protocol.v1.Header;
import io.spinagent.protocol.v1.TunnelRequestHead;
import io.spinagent.protocol.v1.TunnelResponseHead;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kubernetes API that Clouddriver's kubectl talks to: {@code /clusters/<account>/...} over
 * HTTPS on a loopback port, relayed over the account's agent session. Each request is one tunnel
 * stream; request and response bodies flow in chunks under credit, so neither a large apply nor a
 * long watch is buffered whole. Errors of the tunnel itself are Kubernetes {@code Status} objects,
 * so kubectl prints their message.
 */
public final class TunnelHttpServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(TunnelHttpServer.class);
  private static final String PREFIX = "/clusters/";
  private static final int CHUNK = 64 * 1024;

  /** Hop-by-hop and framing headers: each side of the tunnel sets its own. */
  private static final Set<String> NOT_RELAYED =
      HopByHopHeaders.and("authorization", ForwardingEndpoint.SECRET_HEADER);

  private final TunnelTls tls;
  private final TunnelRouting routing;
  private final int window;
  private final Duration timeout;
  private final TunnelOperationListener listener;
  private final SessionTunnels sessionTunnels = new SessionTunnels();
  private final NettyHttpServer server;

  /** Starts serving once everything it serves with is set. */
  private TunnelHttpServer(
      TunnelProperties tunnel,
      OperationsProperties operations,
      TunnelTls tls,
      TunnelRouting routing,
      TunnelOperationListener listener) {
    this.tls = tls;
    this.routing = routing;
    this.window = (int) tunnel.getWindow().toBytes();
    this.timeout = operations.getTimeout();
    this.listener = listener;
    InetSocketAddress address = new InetSocketAddress(tunnel.getAddress(), tunnel.getPort());
    // One thread per request in flight: watches hold theirs for as long as they stream.
    ExecutorService handlers =
        Executors.newCachedThreadPool(DaemonThreads.numbered("spinagent-tunnel"));
    RequestHeadLimits limits =
        new RequestHeadLimits(
            tunnel.getMaxHeaderSize().toBytes(),
            "spinagent.tunnel.max-header-size",
            tunnel.getHeaderTimeout(),
            "spinagent.tunnel.header-timeout");
    try {
      this.server =
          NettyHttpServer.start(
              "spinagent-tunnel",
              address,
              tls.serverContext(),
              limits,
              exchange -> handle(exchange, false),
              handlers);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "SpinAgent cannot open the Kubernetes API tunnel on "
              + address
              + " (spinagent.tunnel.address / spinagent.tunnel.port): "
              + e.getMessage(),
          e);
    }
  }

  /** One replica alone, with a CA of its own. */
  public static TunnelHttpServer start(
      TunnelProperties tunnel,
      OperationsProperties operations,
      TunnelTokens tokens,
      AccountRegistry accounts,
      SessionRegistry sessions) {
    return start(tunnel, operations, tokens, accounts, sessions, TunnelOperationListener.NONE);
  }

  /** As above, telling {@code listener} about every request served. */
  public static TunnelHttpServer start(
      TunnelProperties tunnel,
      OperationsProperties operations,
      TunnelTokens tokens,
      AccountRegistry accounts,
      SessionRegistry sessions,
      TunnelOperationListener listener) {
    return start(
        tunnel,
        operations,
        TunnelAuthority.generate(),
        TunnelRouting.local(tokens, accounts, sessions),
        listener);
  }

  /**
   * A replica with the CA it shares with the others, routing each request to its agent or to the
   * replica that holds it, and telling {@code listener} about every request served.
   */
  public static TunnelHttpServer start(
      TunnelProperties tunnel,
      OperationsProperties operations,
      TunnelAuthority authority,
      TunnelRouting routing,
      TunnelOperationListener listener) {
    TunnelTls tls = TunnelTls.issue(authority, tunnel.getAddress());
    TunnelHttpServer server = new TunnelHttpServer(tunnel, operations, tls, routing, listener);
    log.info("Kubernetes API tunnel listening on {}:{}", tunnel.getAddress(), server.port());
    return server;
  }

  public int port() {
    return server.address().getPort();
  }

  /** The server URL of an account's kubeconfig. */
  public String clusterUrl(String account) {
    return "https://" + server.address().getHostString() + ":" + port() + PREFIX + account;
  }

  /** The CA an account's kubeconfig trusts for the tunnel (PEM). */
  public String caCertificatePem() {
    return tls.caCertificatePem();
  }

  @Override
  public void close() {
    server.close();
  }

  /**
   * A request another replica forwarded (the shared secret already checked): served here or
   * refused.
   */
  public void serveForwarded(HttpExchange exchange) throws IOException {
    handle(exchange, true);
  }

  private void handle(HttpExchange exchange, boolean forwarded) throws IOException {
    TunnelTrace trace = new TunnelTrace(exchange, Clock.systemUTC());
    try {
      serve(exchange, forwarded, trace);
    } finally {
      try {
        listener.completed(trace.end(exchange.getResponseCode()));
      } catch (RuntimeException e) {
        log.warn(
            "Could not record the operation {} {}: {}",
            exchange.getRequestMethod(),
            exchange.getRequestURI().getRawPath(),
            e.toString());
      }
    }
  }

  private void serve(HttpExchange exchange, boolean forwarded, TunnelTrace trace)
      throws IOException {
    boolean cutShort = false;
    try {
      String rawPath = exchange.getRequestURI().getRawPath();
      if (rawPath == null || !rawPath.startsWith(PREFIX)) {
        status(
            exchange,
            404,
            "NotFound",
            "the tunnel serves " + PREFIX + "<account>/… only, not " + exchange.getRequestURI());
        return;
      }
      String rest = rawPath.substring(PREFIX.length());
      int slash = rest.indexOf('/');
      String account = slash < 0 ? rest : rest.substring(0, slash);
      String path = slash < 0 ? "/" : rest.substring(slash);
      trace.target(account, path);
      String authorization = exchange.getRequestHeaders().getFirst("Authorization");
      String token =
          authorization != null && authorization.startsWith("Bearer ")
              ? authorization.substring(7)
              : null;
      TunnelRoute route = routing.route(account, token, forwarded);
      if (route instanceof TunnelRoute.Local local) {
        relay(exchange, account, path, local.session(), trace);
      } else if (route instanceof TunnelRoute.Forward forward) {
        if (!forward.forwarder().forward(exchange, forward.owner())) {
          throw new ResponseCutShort(
              "replica '" + forward.owner().replicaId() + "' broke off the response");
        }
      } else if (route instanceof TunnelRoute.Refused refused) {
        status(exchange, refused.code(), refused.reason(), refused.message());
      }
    } catch (ResponseCutShort e) {
      // Not closing the exchange: closing would finish the chunked body and the client would take
      // a truncated answer for a whole one. Throwing makes the server drop the connection instead.
      cutShort = true;
      throw new IOException(e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (!cutShort) {
        exchange.close();
      }
    }
  }

  /** The response had begun when the stream failed. */
  private static final class ResponseCutShort extends RuntimeException {
    ResponseCutShort(String message) {
      super(message);
    }
  }

  private void relay(
      HttpExchange exchange, String account, String path, AgentSession session, TunnelTrace trace)
      throws IOException, InterruptedException {
    String agent = session.agentId();
    Optional<AgentTunnels> subscribed = sessionTunnels.of(session);
    if (subscribed.isEmpty()) {
      status(
          exchange,
          503,
          "ServiceUnavailable",
          "account '" + account + "' has no connected agent: agent '" + agent + "' disconnected");
      return;
    }
    AgentTunnels tunnels = subscribed.get();
    TunnelRequestHead.Builder head =
        TunnelRequestHead.newBuilder()
            .setAccount(account)
            .setMethod(exchange.getRequestMethod())
            .setPath(path)
            .setQuery(Optional.ofNullable(exchange.getRequestURI().getRawQuery()).orElse(""))
            .setWithoutBody(withoutBody(exchange.getRequestHeaders()));
    relayed(exchange.getRequestHeaders()).forEach(head::addHeaders);
    TunnelStream stream = tunnels.open(head.build(), window);
    trace.agent(agent);
    try {
      if (!sendRequestBody(exchange.getRequestBody(), stream)) {
        String failure = stream.failure();
        tunnels.cancel(stream, "request body not accepted");
        status(
            exchange,
            failure == null ? 504 : 502,
            failure == null ? "Timeout" : "BadGateway",
            failure == null
                ? "agent '"
                    + agent
                    + "' did not accept the request body for account '"
                    + account
                    + "' within "
                    + timeout.toSeconds()
                    + "s"
                : failure);
        return;
      }
      tunnels.endRequest(stream);
      TunnelResponseHead response = stream.awaitHead(timeout);
      if (response == null) {
        String failure = stream.failure();
        tunnels.cancel(stream, "timed out");
        if (failure != null) {
          status(exchange, 502, "BadGateway", failure);
        } else {
          status(
              exchange,
              504,
              "Timeout",
              "no answer from account '"
                  + account
                  + "' through agent '"
                  + agent
                  + "' within "
                  + timeout.toSeconds()
                  + "s (spinagent.operations.timeout)");
        }
        return;
      }
      trace.firstByte();
      Headers headers = exchange.getResponseHeaders();
      for (Header header : response.getHeadersList()) {
        if (!NOT_RELAYED.contains(header.getName().toLowerCase(Locale.ROOT))) {
          headers.put(header.getName(), List.copyOf(header.getValuesList()));
        }
      }
      exchange.sendResponseHeaders(response.getStatus(), responseLength(exchange, response));
      OutputStream body = exchange.getResponseBody();
      ByteString chunk;
      while ((chunk = stream.nextChunk()) != null) {
        try {
          chunk.writeTo(body);
          body.flush();
        } catch (IOException clientGone) {
          tunnels.cancel(stream, "the client closed the connection");
          return;
        }
      }
      tunnels.finished(stream);
      if (stream.failure() != null) {
        // Headers are gone: all we can do is cut the response short so the client sees it failed.
        log.warn(
            "Request {} {} for account '{}' through agent '{}' failed mid-response: {}",
            exchange.getRequestMethod(),
            path,
            account,
            agent,
            stream.failure());
        throw new ResponseCutShort(stream.failure());
      }
    } finally {
      tunnels.finished(stream);
    }
  }

  /**
   * HTTP/1.1: a request without Transfer-Encoding and without a positive Content-Length has no
   * body.
   */
  private static boolean withoutBody(Headers headers) {
    String length = headers.getFirst("Content-Length");
    return !headers.containsKey("Transfer-Encoding")
        && (length == null || length.trim().equals("0"));
  }

  /**
   * The length argument of {@code sendResponseHeaders}: the agent's declared length when it has one
   * (-1 for no body), else 0 for a chunked body that ends when the agent ends it.
   */
  private static long responseLength(HttpExchange exchange, TunnelResponseHead response) {
    if (exchange.getRequestMethod().equalsIgnoreCase("HEAD")
        || response.getStatus() == 204
        || response.getStatus() == 304) {
      return -1;
    }
    if (!response.hasBodyLength()) {
      return 0;
    }
    return response.getBodyLength() == 0 ? -1 : response.getBodyLength();
  }

  private boolean sendRequestBody(InputStream in, TunnelStream stream)
      throws IOException, InterruptedException {
    byte[] buffer = new byte[Math.min(CHUNK, Math.max(1, window))];
    int read;
    while ((read = in.readNBytes(buffer, 0, buffer.length)) > 0) {
      if (!stream.sendBody(ByteString.copyFrom(buffer, 0, read), timeout)) {
        return false;
      }
    }
    return true;
  }

  private static List<Header> relayed(Headers headers) {
    return headers.entrySet().stream()
        .filter(e -> !NOT_RELAYED.contains(e.getKey().toLowerCase(Locale.ROOT)))
        .map(
            (Map.Entry<String, List<String>> e) ->
                Header.newBuilder().setName(e.getKey()).addAllValues(e.getValue()).build())
        .toList();
  }

  private static void status(HttpExchange exchange, int code, String reason, String message)
      throws IOException {
    StatusResponse.send(exchange, code, reason, message);
  }
}
