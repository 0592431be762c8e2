package io.spinagent.plugin.tunnel.history;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.spinagent.common.KubernetesRequest;
import io.spinagent.plugin.tunnel.TunnelOperation;
import io.spinagent.plugin.tunnel.TunnelOperationListener;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the tunnel served, as meters operators can watch: {@code spinagent.tunnel.requests} per
 * account, Kubernetes verb and HTTP status (count, total and maximum time to the response's head),
 * and {@code spinagent.tunnel.request.latency} per verb with a histogram for percentiles. The time
 * to the response's head is what a kubectl command waits for; a watch's whole life is not a
 * latency.
 *
 * <p>The account tag is kept bounded: the first {@value #MAX_ACCOUNTS} accounts whose requests
 * reached an agent keep their name; later ones, and requests that reached no agent (e.g. for a name
 * that does not exist), share {@code account="other"}, so neither a fleet nor a caller inventing
 * names can grow the series without limit.
 */
public final class TunnelMetrics implements TunnelOperationListener {

  static final int MAX_ACCOUNTS = 2000;
  static final String OTHER = "other";

  private final MeterRegistry meters;
  private final Set<String> named = ConcurrentHashMap.newKeySet();

  public TunnelMetrics(MeterRegistry meters) {
    this.meters = meters;
  }

  @Override
  public void completed(TunnelOperation operation) {
    String verb =
        KubernetesRequest.of(operation.method(), operation.path(), operation.query()).verbLabel();
    String status = operation.status() < 0 ? "none" : Integer.toString(operation.status());
    Timer.builder("spinagent.tunnel.requests")
        .description("Requests through the tunnel: time until the response's head")
        .tag("account", accountTag(operation))
        .tag("verb", verb)
        .tag("status", status)
        .register(meters)
        .record(operation.timeToFirstByte());
    Timer.builder("spinagent.tunnel.request.latency")
        .description("Time until the response's head of requests through the tunnel, by verb")
        .tag("verb", verb)
        .publishPercentileHistogram()
        .register(meters)
        .record(operation.timeToFirstByte());
  }

  /** The account's own tag while fewer than the limit have one; never for unknown accounts. */
  private String accountTag(TunnelOperation operation) {
    String account = operation.account();
    if (operation.agentId() == null) {
      // Never reached an agent: possibly a name that does not exist, which must not take a slot.
      return OTHER;
    }
    if (named.contains(account)) {
      return account;
    }
    if (named.size() < MAX_ACCOUNTS) {
      named.add(account);
      return account;
    }
    return OTHER;
  }
}
