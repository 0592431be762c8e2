package io.spinagent.benchmarks.fleet;

import io.spinagent.testkit.kubernetes.KubernetesApiServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The isolation scenario's flooding cluster, in a process of its own so that it can run at the
 * lowest CPU priority, as its flooding agent does: in production neither runs on Clouddriver's
 * machine, and on the benchmark's two cores they would otherwise take most of the CPU the measured
 * accounts need (docs/benchmarks.md, "Isolation").
 *
 * <p>One API server (HTTPS, a port of its own) holding the isolation clusters' application and
 * {@code --objects} Services {@code flood-0}, … Writes its kubeconfig to {@code --kubeconfig},
 * prints {@code READY}, then answers commands on stdin: {@code flood <n>} annotates the Services in
 * turn {@code n} times a second until {@code stop}, which prints {@code STATS flooded=<changes>
 * seconds=<s>}; end of input stops it.
 *
 * <pre>java ... FloodClusterMain --objects=200 --kubeconfig=/tmp/iso-flood.kubeconfig</pre>
 */
public final class FloodClusterMain {

  private FloodClusterMain() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    int objects = 0;
    Path kubeconfig = null;
    for (String arg : args) {
      if (arg.startsWith("--objects=")) {
        objects = Integer.parseInt(arg.substring("--objects=".length()));
      } else if (arg.startsWith("--kubeconfig=")) {
        kubeconfig = Path.of(arg.substring("--kubeconfig=".length()));
      } else {
        throw new IllegalArgumentException("unknown argument " + arg);
      }
    }
    if (objects < 1 || kubeconfig == null) {
      throw new IllegalArgumentException("usage: FloodClusterMain --objects=N --kubeconfig=FILE");
    }
    try (KubernetesApiServer cluster = IsolationScenario.cluster(objects)) {
      cluster.kubeconfig().name(IsolationScenario.FLOOD).writeTo(kubeconfig);
      System.out.println("READY");
      System.out.flush();
      BufferedReader commands =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      Flood flood = null;
      String command;
      while ((command = commands.readLine()) != null) {
        if (command.startsWith("flood ") && flood == null) {
          flood = new Flood(cluster, objects, Integer.parseInt(command.substring(6)));
          flood.start();
        } else if (command.equals("stop") && flood != null) {
          System.out.println(flood.stop());
          System.out.flush();
          flood = null;
        }
      }
      if (flood != null) {
        flood.stop();
      }
    }
  }

  /** Changes the cluster's flood Services at a steady rate until stopped. */
  private static final class Flood {
    private final KubernetesApiServer cluster;
    private final int objects;
    private final int perSecond;
    private final Thread thread;
    private final AtomicLong sent = new AtomicLong();
    private volatile boolean running = true;
    private long started;

    Flood(KubernetesApiServer cluster, int objects, int perSecond) {
      this.cluster = cluster;
      this.objects = objects;
      this.perSecond = perSecond;
      this.thread = new Thread(this::run, "fleet-bench-flood");
    }

    void start() {
      started = System.nanoTime();
      thread.start();
    }

    /** Stops the flood; returns its {@code STATS} line. */
    String stop() throws InterruptedException {
      running = false;
      thread.join();
      double seconds = (System.nanoTime() - started) / 1e9;
      return String.format("STATS flooded=%d seconds=%.1f", sent.get(), seconds);
    }

    private void run() {
      Pace.run(
          perSecond,
          () -> running,
          index -> {
            cluster.mergePatchObject(
                "v1",
                "Service",
                "default",
                "flood-" + (index % objects),
                "{\"metadata\":{\"annotations\":{\"bench/flood\":\"" + index + "\"}}}");
            sent.incrementAndGet();
          });
    }
  }
}
