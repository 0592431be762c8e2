package io.spinagent.agent.tunnel;

import io.kubernetes.client.openapi.ApiClient;
import io.spinagent.protocol.v1.TunnelFrame;
import io.spinagent.protocol.v1.TunnelRequestHead;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Performs the Kubernetes API requests Clouddriver relays through this agent, each with the
 * account's own credentials, and streams the answers back. Frames arrive on the stream thread and
 * are handed to an {@link TunnelExchange} without blocking; each exchange runs on a worker thread.
 * At most {@code maxPerAccount} requests of one account run at once; more are answered 429.
 */
public final class TunnelExecutor implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(TunnelExecutor.class);
  public static final int DEFAULT_MAX_PER_ACCOUNT = 32;

  private final Function<String, Optional<ApiClient>> clients;
  private final Consumer<TunnelFrame> toPlugin;
  private final int maxPerAccount;
  private final ExecutorService workers;
  private final Map<Long, TunnelExchange> exchanges = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();

  public TunnelExecutor(
      Function<String, Optional<ApiClient>> clients, Consumer<TunnelFrame> toPlugin, int maxPerAccount) {
    this.clients = clients;
    this.toPlugin = toPlugin;
    this.maxPerAccount = maxPerAccount;
    AtomicInteger threads = new AtomicInteger();
    this.workers = Executors.newCachedThreadPool(runnable -> {
      Thread thread = new Thread(runnable, "spinagent-tunnel-" + threads.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
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
      default -> log.debug("Ignoring a {} tunnel frame from Clouddriver for request {}", frame.getFrameCase(), id);
    }
  }

  /** The session with Clouddriver ended: nobody waits for the answers any more. */
  public void sessionEnded() {
    List.copyOf(exchanges.values()).forEach(exchange -> exchange.cancel("the session with Clouddriver ended"));
  }

  @Override
  public void close() {
    sessionEnded();
    workers.shutdownNow();
  }

  private void start(long id, TunnelRequestHead head) {
    String account = head.getAccount();
    Optional<ApiClient> client = clients.apply(account);
    if (client.isEmpty()) {
      TunnelExchange.refuse(id, toPlugin, 503, "ServiceUnavailable",
          "this agent has no connection to the cluster of account '" + account + "'");
      return;
    }
    AtomicInteger count = running.computeIfAbsent(account, a -> new AtomicInteger());
    if (count.incrementAndGet() > maxPerAccount) {
      count.decrementAndGet();
      TunnelExchange.refuse(id, toPlugin, 429, "TooManyRequests",
          "account '" + account + "' already has " + maxPerAccount + " requests running through this agent");
      return;
    }
    TunnelExchange exchange = new TunnelExchange(id, head, client.get(), toPlugin, () -> {
      exchanges.remove(id);
      count.decrementAndGet();
    });
    exchanges.put(id, exchange);
    exchange.start(workers);
  }
}
