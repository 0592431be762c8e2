package io.spinagent.benchmarks.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.spinagent.testkit.kubernetes.KubernetesApiServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the healthy accounts of an {@link IsolationScenario} see, measured from outside the
 * processes:
 *
 * <ul>
 *   <li><b>change → row</b>: {@value #CHANGES_PER_SECOND} changes a second, round robin over the
 *       accounts, each a merge patch of the cluster's {@code probe} Service; timed from the API
 *       server's answer to the moment its resourceVersion is in {@code spinagent_objects}, which
 *       the plugin writes in the transaction of the cache rows (polled every 2 ms);
 *   <li><b>tunnel</b>: {@value #TUNNEL_PER_SECOND} {@code GET} of the probe Service a second
 *       through the plugin's tunnel, with each account's Clouddriver kubeconfig.
 * </ul>
 *
 * A change or request belongs to the phase in which it was made, however late it lands.
 */
final class IsolationProbes implements AutoCloseable {

  static final int CHANGES_PER_SECOND = 20;
  static final int TUNNEL_PER_SECOND = 5;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Figures of one phase. */
  record Figures(Latencies rows, Latencies tunnel, long tunnelErrors) {}

  private record Pending(long resourceVersion, long madeAt, Latencies phase) {}

  private final FleetDatabase.Scenario db;
  private final Map<String, KubernetesApiServer> clusters;
  private final Map<String, ApiClient> tunnels;
  private final Map<String, Deque<Pending>> pending = new HashMap<>();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean running = true;
  private volatile Latencies rows = new Latencies();
  private volatile Latencies tunnel = new Latencies();
  private final AtomicLong tunnelErrors = new AtomicLong();

  IsolationProbes(
      FleetDatabase.Scenario db,
      Map<String, KubernetesApiServer> clusters,
      Map<String, ApiClient> tunnels) {
    this.db = db;
    this.clusters = clusters;
    this.tunnels = tunnels;
    clusters.keySet().forEach(account -> pending.put(account, new ArrayDeque<>()));
  }

  /** The probe Service's manifest. */
  static String service(String name) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\""
        + name
        + "\",\"namespace\":\"default\"},\"spec\":{\"ports\":[{\"port\":80}]}}";
  }

  void start() {
    threads.add(new Thread(this::change, "fleet-bench-isolation-changes"));
    threads.add(new Thread(this::poll, "fleet-bench-isolation-rows"));
    threads.add(new Thread(this::tunnel, "fleet-bench-isolation-tunnel"));
    threads.forEach(
        t -> {
          t.setDaemon(true);
          t.start();
        });
  }

  /**
   * Measures for {@code length}, then waits (at most 30 s) for the phase's changes to land: those
   * still missing count as lost.
   */
  Figures measure(Duration length) {
    Latencies phaseRows = new Latencies();
    Latencies phaseTunnel = new Latencies();
    long errorsBefore = tunnelErrors.get();
    rows = phaseRows;
    tunnel = phaseTunnel;
    Sleep.of(length);
    rows = new Latencies();
    tunnel = new Latencies();
    long errors = tunnelErrors.get() - errorsBefore;
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (phaseRows.missing() > 0 && System.nanoTime() < deadline) {
      Sleep.of(Duration.ofMillis(50));
    }
    return new Figures(phaseRows, phaseTunnel, errors);
  }

  private void change() {
    List<String> accounts = new ArrayList<>(clusters.keySet());
    Pace.run(
        CHANGES_PER_SECOND,
        () -> running,
        made -> {
          String account = accounts.get((int) (made % accounts.size()));
          Latencies phase = rows;
          String stored =
              clusters
                  .get(account)
                  .mergePatchObject(
                      "v1",
                      "Service",
                      "default",
                      "probe",
                      "{\"metadata\":{\"annotations\":{\"bench/change\":\"" + made + "\"}}}");
          long madeAt = System.nanoTime();
          phase.offered();
          synchronized (pending) {
            pending.get(account).add(new Pending(resourceVersion(stored), madeAt, phase));
          }
        });
  }

  private void poll() {
    while (running) {
      try (Connection c = db.open();
          PreparedStatement s =
              c.prepareStatement(
                  "SELECT account, resource_version FROM spinagent_objects"
                      + " WHERE api_group = '' AND kind = 'Service' AND namespace = 'default'"
                      + " AND name = 'probe'")) {
        while (running) {
          Map<String, Long> committed = new HashMap<>();
          try (ResultSet result = s.executeQuery()) {
            while (result.next()) {
              String version = result.getString(2);
              if (version != null) {
                committed.put(result.getString(1), Long.parseLong(version));
              }
            }
          }
          long now = System.nanoTime();
          synchronized (pending) {
            committed.forEach(
                (account, version) -> {
                  Deque<Pending> waiting = pending.get(account);
                  while (waiting != null
                      && !waiting.isEmpty()
                      && waiting.peek().resourceVersion() <= version) {
                    Pending landed = waiting.poll();
                    landed.phase().record((now - landed.madeAt()) / 1_000);
                  }
                });
          }
          Sleep.of(Duration.ofMillis(2));
        }
      } catch (SQLException e) {
        // The database is not ready yet or the connection broke: connect again.
        Sleep.of(Duration.ofMillis(200));
      }
    }
  }

  private void tunnel() {
    List<String> accounts = new ArrayList<>(tunnels.keySet());
    Pace.run(
        TUNNEL_PER_SECOND,
        () -> running,
        sent -> {
          String account = accounts.get((int) (sent % accounts.size()));
          Latencies phase = tunnel;
          long begun = System.nanoTime();
          try {
            new CoreV1Api(tunnels.get(account)).readNamespacedService("probe", "default").execute();
            phase.record((System.nanoTime() - begun) / 1_000);
          } catch (ApiException e) {
            tunnelErrors.incrementAndGet();
          }
        });
  }

  private static long resourceVersion(String object) {
    try {
      JsonNode tree = JSON.readTree(object);
      return Long.parseLong(tree.path("metadata").path("resourceVersion").asText());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    running = false;
    for (Thread thread : threads) {
      try {
        thread.join(Duration.ofSeconds(15).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
