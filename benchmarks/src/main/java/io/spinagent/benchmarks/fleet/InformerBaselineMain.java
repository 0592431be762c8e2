package io.spinagent.benchmarks.fleet;

import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.spinagent.benchmarks.PlainInformers;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The agent benchmark's baseline, in a process of its own: what the same accounts cost with plain
 * client-java informers and nothing else. Per account an {@link ApiClient} from its kubeconfig and,
 * for each of the kinds the agent watches by default, a {@link SharedInformerFactory} with one
 * informer on {@link DynamicKubernetesObject} (a factory keeps one informer per Java type).
 *
 * <p>Prints {@code READY idle} and waits for {@code start} on stdin (so that the idle process can
 * be measured), starts every informer, prints {@code READY synced <millis>} once all have synced,
 * then answers {@code objects} with {@code STATS objects=<objects in the informers' caches>}, and
 * stops at the end of its input.
 */
public final class InformerBaselineMain {

  /** The agent's default kinds: group, version, plural. */
  static final String[][] DEFAULT_KINDS = {
    {"", "v1", "namespaces"},
    {"", "v1", "pods"},
    {"", "v1", "services"},
    {"apps", "v1", "deployments"},
    {"apps", "v1", "replicasets"},
    {"apps", "v1", "daemonsets"},
    {"apps", "v1", "statefulsets"},
    {"batch", "v1", "jobs"},
    {"batch", "v1", "cronjobs"},
    {"networking.k8s.io", "v1", "ingresses"},
    {"networking.k8s.io", "v1", "networkpolicies"},
    {"apiextensions.k8s.io", "v1", "customresourcedefinitions"},
  };

  private InformerBaselineMain() {}

  public static void main(String[] args) throws Exception {
    Path dir = null;
    int accounts = 0;
    for (String arg : args) {
      if (arg.startsWith("--dir=")) {
        dir = Path.of(arg.substring("--dir=".length()));
      } else if (arg.startsWith("--accounts=")) {
        accounts = Integer.parseInt(arg.substring("--accounts=".length()));
      } else {
        throw new IllegalArgumentException("unknown argument " + arg);
      }
    }
    BufferedReader commands =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    System.out.println("READY idle");
    System.out.flush();
    if (!"start".equals(commands.readLine())) {
      return;
    }
    long start = System.nanoTime();
    PlainInformers informers = new PlainInformers();
    for (int i = 1; i <= accounts; i++) {
      informers.start(
          client(ClusterFleetMain.kubeconfig(dir, ClusterFleetMain.accountName(i))), DEFAULT_KINDS);
    }
    informers.awaitSynced(Duration.ofMillis(20));
    int objects = informers.objects();
    System.out.println(
        "READY synced "
            + Duration.ofNanos(System.nanoTime() - start).toMillis()
            + " objects="
            + objects);
    System.out.flush();
    String command;
    while ((command = commands.readLine()) != null) {
      // Holds the informers until the benchmark has measured and closes stdin.
      if (command.equals("objects")) {
        System.out.println("STATS objects=" + informers.objects());
        System.out.flush();
      }
    }
    informers.stop();
    System.exit(0);
  }

  private static ApiClient client(Path kubeconfig) throws IOException {
    try (Reader reader = Files.newBufferedReader(kubeconfig)) {
      return ClientBuilder.kubeconfig(KubeConfig.loadKubeConfig(reader))
          .setReadTimeout(Duration.ZERO)
          .build();
    }
  }
}
