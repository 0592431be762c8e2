package io.spinagent.benchmarks.fleet;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.spinagent.testkit.kubernetes.KubernetesApiFleet;
import io.spinagent.testkit.kubernetes.KubernetesApiServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The simulated clusters of the agent benchmark, in a process of their own so that their threads
 * and memory are not counted with the agent's: one {@link KubernetesApiFleet} (HTTPS, one port)
 * with {@code clusters} clusters named {@code acc-0001}, … each seeded with {@link
 * ClusterObjects#cluster} and accepting only its own bearer token. Writes one kubeconfig per
 * cluster to {@code dir}, prints {@code READY <url>}, then answers commands on stdin: {@code stats}
 * prints {@code STATS watches=<open watches> listed=<objects listed so far>}; {@code grow <n>} adds
 * {@link ClusterObjects#growth} of about n objects to every cluster and prints {@code STATS
 * grown=<objects per cluster>}; {@code shrink} deletes them again ({@code STATS shrunk}); end of
 * input stops it.
 *
 * <pre>java ... ClusterFleetMain --clusters=200 --dir=/tmp/fleet</pre>
 */
public final class ClusterFleetMain {

  static final String GROWTH_NAMESPACE = "grown";

  private ClusterFleetMain() {}

  public static void main(String[] args) throws IOException {
    int clusters = 0;
    Path dir = null;
    for (String arg : args) {
      if (arg.startsWith("--clusters=")) {
        clusters = Integer.parseInt(arg.substring("--clusters=".length()));
      } else if (arg.startsWith("--dir=")) {
        dir = Path.of(arg.substring("--dir=".length()));
      } else {
        throw new IllegalArgumentException("unknown argument " + arg);
      }
    }
    if (clusters < 1 || dir == null) {
      throw new IllegalArgumentException("usage: ClusterFleetMain --clusters=N --dir=DIR");
    }
    Files.createDirectories(dir);
    try (KubernetesApiFleet fleet = KubernetesApiFleet.builder().start()) {
      for (int i = 1; i <= clusters; i++) {
        String name = accountName(i);
        KubernetesApiServer cluster = fleet.addCluster(name);
        cluster.accessControl().acceptToken("token-" + name, name + "-reader", r -> true);
        List<ObjectNode> objects = ClusterObjects.cluster("shop");
        for (ObjectNode object : objects) {
          cluster.createObject(object.toString());
        }
        cluster.kubeconfig().name(name).token("token-" + name).writeTo(kubeconfig(dir, name));
      }
      System.out.println("READY " + fleet.url());
      System.out.flush();
      BufferedReader commands =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String command;
      List<ObjectNode> grown = List.of();
      while ((command = commands.readLine()) != null) {
        if (command.equals("stats")) {
          System.out.println(
              "STATS watches=" + fleet.activeWatches() + " listed=" + fleet.listedObjects());
          System.out.flush();
        } else if (command.startsWith("grow ")) {
          grown = ClusterObjects.growth(GROWTH_NAMESPACE, Integer.parseInt(command.substring(5)));
          for (KubernetesApiServer cluster : fleet.clusters().values()) {
            grown.forEach(object -> cluster.createObject(object.toString()));
          }
          System.out.println("STATS grown=" + grown.size());
          System.out.flush();
        } else if (command.equals("shrink")) {
          for (KubernetesApiServer cluster : fleet.clusters().values()) {
            // The namespace last: its objects first, as the namespace controller would.
            for (int i = grown.size() - 1; i >= 0; i--) {
              ObjectNode object = grown.get(i);
              cluster.deleteObject(
                  object.path("apiVersion").asText(),
                  object.path("kind").asText(),
                  object.path("metadata").path("namespace").asText(null),
                  object.path("metadata").path("name").asText());
            }
          }
          grown = List.of();
          System.out.println("STATS shrunk");
          System.out.flush();
        } else if (command.equals("close-watches")) {
          fleet.clusters().values().forEach(KubernetesApiServer::closeAllWatches);
          System.out.println("STATS closed");
          System.out.flush();
        }
      }
    }
  }

  /** The name of the {@code i}-th account and its cluster (1-based). */
  static String accountName(int i) {
    return String.format("acc-%04d", i);
  }

  static Path kubeconfig(Path dir, String account) {
    return dir.resolve(account + ".kubeconfig");
  }
}
