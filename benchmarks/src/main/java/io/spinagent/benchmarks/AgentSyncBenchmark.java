package io.spinagent.benchmarks;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.spinagent.agent.cluster.ClusterManager;
import io.spinagent.agent.cluster.ClusterOptions;
import io.spinagent.agent.config.AccountPermissions;
import io.spinagent.agent.config.KubernetesAccountConfig;
import io.spinagent.agent.config.TasksConfig;
import io.spinagent.agent.stream.Outbox;
import io.spinagent.protocol.v1.AccountDecision;
import io.spinagent.protocol.v1.Role;
import io.spinagent.testkit.kubernetes.KubernetesApiServer;
import java.io.FileReader;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The agent's initial sync of a cluster (issue 4's figures): time until every object of a 10,000
 * object cluster of mixed kinds is in the outbox, and heap retained per object while the agent
 * holds them — each against the same run's baseline, plain client-java informers over the same
 * kinds with nothing else (no scrubbing, no outbox, no discovery or access checks).
 *
 * <p>Each side runs twice in alternation and the second round is reported, so class loading and JIT
 * warm-up fall on the first. Heap is measured after repeated full GCs; treat it as an estimate.
 * Run: {@code ./mvnw -q -pl benchmarks -am -DskipTests verify -Pbenchmark}.
 */
public final class AgentSyncBenchmark {

  private static final String[][] KINDS = {
    {"apps", "v1", "deployments", "Deployment"},
    {"apps", "v1", "replicasets", "ReplicaSet"},
    {"", "v1", "pods", "Pod"},
    {"", "v1", "services", "Service"},
  };

  private AgentSyncBenchmark() {}

  public static void main(String[] args) throws Exception {
    int objects = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    try (KubernetesApiServer cluster = KubernetesApiServer.builder().http().start()) {
      seed(cluster, objects);
      Path kubeconfig = cluster.kubeconfig().writeTempFile();
      Measurement baseline = null;
      Measurement agent = null;
      for (int round = 1; round <= 2; round++) {
        baseline = measure(objects, () -> informers(kubeconfig));
        agent = measure(objects, () -> agent(kubeconfig, objects));
      }
      System.out.printf(
          "%nAgent initial sync of %,d objects (%d kinds), second of two rounds%n",
          objects, KINDS.length);
      System.out.printf("%-34s %14s %14s %8s%n", "", "baseline", "agent", "ratio");
      System.out.printf(
          "%-34s %12.0f ms %12.0f ms %8.2f%n",
          "time until all objects are held",
          baseline.millis,
          agent.millis,
          agent.millis / baseline.millis);
      System.out.printf(
          "%-34s %12.2f KB %12.2f KB %8.2f%n",
          "heap retained per object",
          baseline.bytesPerObject / 1024,
          agent.bytesPerObject / 1024,
          agent.bytesPerObject / baseline.bytesPerObject);
      System.out.println(
          "baseline: client-java SharedIndexInformers on DynamicKubernetesObject, same kinds and"
              + " server");
      System.out.println(
          "agent:    ClusterManager (discovery, access review, scrubbing) + Outbox holding every"
              + " change");
    }
  }

  private interface Running extends AutoCloseable {}

  private interface Starter {
    Running start() throws Exception;
  }

  private record Measurement(double millis, double bytesPerObject) {}

  private static Measurement measure(int objects, Starter starter) throws Exception {
    long before = usedHeapAfterGc();
    long start = System.nanoTime();
    try (Running running = starter.start()) {
      double millis = (System.nanoTime() - start) / 1e6;
      long after = usedHeapAfterGc();
      return new Measurement(millis, (after - before) / (double) objects);
    }
  }

  private static Running informers(Path kubeconfig) throws IOException, InterruptedException {
    ApiClient client;
    try (FileReader reader = new FileReader(kubeconfig.toFile(), StandardCharsets.UTF_8)) {
      client = ClientBuilder.kubeconfig(KubeConfig.loadKubeConfig(reader)).build();
    }
    PlainInformers informers = new PlainInformers();
    informers.start(client, KINDS);
    informers.awaitSynced(Duration.ofMillis(5));
    return informers::stop;
  }

  private static Running agent(Path kubeconfig, int objects) throws InterruptedException {
    Outbox outbox = new Outbox(1L << 31);
    ClusterManager[] holder = new ClusterManager[1];
    // Accounts are watched once Clouddriver decides to cache them: decide as a plugin would.
    ClusterManager manager =
        new ClusterManager(
            outbox,
            new TasksConfig(1000, 50),
            30,
            ClusterOptions.DEFAULTS,
            accounts ->
                accounts.forEach(
                    account ->
                        holder[0].decided(
                            AccountDecision.newBuilder()
                                .setAccount(account.getName())
                                .setAccepted(true)
                                .setRole(Role.ROLE_CACHING)
                                .setResyncRequired(true)
                                .build())));
    holder[0] = manager;
    manager.apply(
        List.of(
            new KubernetesAccountConfig(
                "bench",
                Optional.of(kubeconfig),
                false,
                Optional.empty(),
                List.of(),
                List.of(),
                List.of("Deployment", "ReplicaSet", "Pod", "Service"),
                List.of(),
                false,
                false,
                AccountPermissions.UNRESTRICTED,
                Duration.ofMinutes(5))));
    while (!manager.allSynced() || outbox.size() < objects) {
      Thread.sleep(5);
    }
    return () -> {
      manager.close();
      outbox.close();
    };
  }

  /** Objects shaped like a real application's: labels, annotations, a container spec each. */
  private static void seed(KubernetesApiServer cluster, int objects) {
    for (int i = 0; i < objects; i++) {
      String[] kind = KINDS[i % KINDS.length];
      String apiVersion = kind[0].isEmpty() ? kind[1] : kind[0] + "/" + kind[1];
      String name = kind[3].toLowerCase(Locale.ROOT) + "-" + i;
      String spec =
          switch (kind[3]) {
            case "Service" ->
                "\"spec\":{\"selector\":{\"app\":\"app-"
                    + (i % 50)
                    + "\"},\"ports\":[{\"port\":80}]}";
            case "Pod" ->
                "\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":\"nginx:1.27\",\"env\":[{\"name\":\"MODE\",\"value\":\"prod\"}]}]}";
            default ->
                "\"spec\":{\"replicas\":2,\"selector\":{\"matchLabels\":{\"app\":\"app-"
                    + (i % 50)
                    + "\"}},"
                    + "\"template\":{\"metadata\":{\"labels\":{\"app\":\"app-"
                    + (i % 50)
                    + "\"}},"
                    + "\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":\"nginx:1.27\"}]}}}";
          };
      cluster.createObject(
          "{\"apiVersion\":\""
              + apiVersion
              + "\",\"kind\":\""
              + kind[3]
              + "\",\"metadata\":{"
              + "\"name\":\""
              + name
              + "\",\"namespace\":\"default\",\"labels\":{\"app\":\"app-"
              + (i % 50)
              + "\",\"tier\":\"web\"},"
              + "\"annotations\":{\"moniker.spinnaker.io/application\":\"app-"
              + (i % 50)
              + "\"}},"
              + spec
              + "}");
    }
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    var memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 4; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return memory.getHeapMemoryUsage().getUsed();
  }
}
