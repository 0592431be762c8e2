package io.spinagent.agent.tunnel;

import io.kubernetes.client.openapi.ApiClient;
import io.spinagent.agent.config.OperationsConfig;
import io.spinagent.common.DaemonThreads;
import io.spinagent.protocol.v1.TunnelFrame;
import io.spinagent.protocol.v1.TunnelRequestHead;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Performs the Kubernetes API requests Clouddriver relays through this agent, each with the
 * account's own credentials, and streams the answers back. Frames arrive on the stream thread and
 * are handed to an {@link TunnelExchange} without blocking; each exchange runs on a worker thread.
 * Requests {@code operations.allow} does not allow are answered 403. Per account, at most {@code
 * operations.maxConcurrentPerAccount} run at once and {@code operations.maxQueuedPerAccount} more
 * wait their turn (their request body waits with them: they get no credit until they run); past
 * that they are answered 429.
 */
public final class TunnelExecutor implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(TunnelExecutor.class);

  private final Function<String, Optional<ApiClient>> clients;
  private final TunnelFrameSink toPlugin;
  private final OperationsConfig operations;
  private final OperationPolicy policy;
  private final String agentId;
  private final ExecutorService workers;
  private final Map<Long, TunnelExchange> exchanges = new ConcurrentHashMap<>();
  private final Map<String, AccountLane> lanes = new ConcurrentHashMap<>();

  public TunnelExecutor(
      Function<String, Optional<ApiClient>> clients,
      TunnelFrameSink toPlugin,
      OperationsConfig operations,
      String agentId) {
    this.clients = clients;
    this.toPlugin = toPlugin;
    this.operations = operations;
    this.policy = OperationPolicy.of(operations.allow());
    this.agentId = agentId;
    this.workers = Executors.newCachedThreadPool(DaemonThreads.numbered("spinagent-tunnel"));
  }

  /** A frame from Clouddriver; never blocks. */
  public void frame(TunnelFrame frame) {
    long id = frame.getStreamId();
    if (frame.hasRequestHead()) {
      start(id, frame.getRequestHead());
      return;
    }
    TunnelExchange exchange = exchanges.get(id);
    if (exchange == null) {
      return; // finished or cancelled already
    }
    switch (frame.getFrameCase()) {
      case BODY -> exchange.requestBody(frame.getBody());
      case END -> exchange.requestEnded();
      case WINDOW -> exchange.responseCredit(frame.getWindow().getBytes());
      case CANCEL -> exchange.cancel("Clouddriver cancelled it: " + frame.getCancel().getReason());
      default ->
          log.debug(
              "Ignoring a {} tunnel frame from Clouddriver for request {}",
              frame.getFrameCase(),
              id);
    }
  }

  /** The requests received and not finished, oldest first. */
  public List<InFlightRequest> inFlight() {
    return exchanges.values().stream()
        .map(TunnelExchange::describe)
        .sorted(Comparator.comparing(InFlightRequest::received))
        .toList();
  }

  /** The session with Clouddriver ended: nobody waits for the answers any more. */
  public void sessionEnded() {
    List.copyOf(exchanges.values())
        .forEach(exchange -> exchange.cancel("the session with Clouddriver ended"));
  }

  @Override
  public void close() {
    sessionEnded();
    workers.shutdownNow();
  }

  private void start(long id, TunnelRequestHead head) {
    String account = head.getAccount();
    Optional<String> refusal = policy.refusal(head.getMethod(), head.getPath(), head.getQuery());
    if (refusal.isPresent()) {
      log.info(
          "Refused {} {} for account '{}': {}",
          head.getMethod(),
          head.getPath(),
          account,
          refusal.get());
      TunnelExchange.refuse(
          id,
          toPlugin,
          403,
          "Forbidden",
          "SpinAgent agent '"
              + agentId
              + "' refuses "
              + head.getMethod()
              + " "
              + head.getPath()
              + " for account '"
              + account
              + "': "
              + refusal.get());
      return;
    }
    Optional<ApiClient> client = clients.apply(account);
    if (client.isEmpty()) {
      TunnelExchange.refuse(
          id,
          toPlugin,
          503,
          "ServiceUnavailable",
          "this agent has no connection to the cluster of account '" + account + "'");
      return;
    }
    AccountLane lane = lanes.computeIfAbsent(account, a -> new AccountLane());
    TunnelExchange exchange =
        new TunnelExchange(
            id,
            head,
            client.get(),
            toPlugin,
            () -> {
              exchanges.remove(id);
              lane.finished();
            });
    exchanges.put(id, exchange);
    if (!lane.admit(exchange)) {
      exchanges.remove(id);
      TunnelExchange.refuse(
          id,
          toPlugin,
          429,
          "TooManyRequests",
          "account '"
              + account
              + "' already has "
              + operations.maxConcurrentPerAccount()
              + " requests running and "
              + operations.maxQueuedPerAccount()
              + " waiting on agent '"
              + agentId
              + "' (operations.maxConcurrentPerAccount,"
              + " operations.maxQueuedPerAccount)");
    }
  }

  /** One account's requests: those running, and those waiting for a turn in arrival order. */
  private final class AccountLane {

    private final ArrayDeque<TunnelExchange> waiting = new ArrayDeque<>();
    private int running;

    /** Runs or queues the exchange; false when there is no room for it. */
    boolean admit(TunnelExchange exchange) {
      synchronized (this) {
        if (running >= operations.maxConcurrentPerAccount()) {
          if (waiting.size() >= operations.maxQueuedPerAccount()) {
            return false;
          }
          waiting.addLast(exchange);
          return true;
        }
        running++;
      }
      exchange.start(workers);
      return true;
    }

    /** A running exchange ended: the next waiting one that is still wanted takes its turn. */
    void finished() {
      TunnelExchange next;
      synchronized (this) {
        running--;
        while ((next = waiting.pollFirst()) != null && next.isCancelled()) {
          exchanges.remove(next.id());
        }
        if (next != null) {
          running++;
        }
      }
      if (next != null) {
        next.start(workers);
      }
    }
  }
}
