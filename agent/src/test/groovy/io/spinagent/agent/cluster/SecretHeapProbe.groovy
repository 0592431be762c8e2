package io.spinagent.agent.cluster

import com.sun.management.HotSpotDiagnosticMXBean
import io.spinagent.agent.config.TasksConfig
import io.spinagent.agent.stream.Outbox

import java.lang.management.ManagementFactory
import java.nio.file.Path

/**
 * Run in a JVM of its own by {@link SecretHeapSpec}: syncs the Secrets of one cluster, then dumps its
 * own heap (live objects only). A separate JVM, because the test's own JVM holds the API server and
 * with it the planted values.
 *
 * <p>Arguments: kubeconfig file, heap dump file, {@code scrub} or {@code no-scrub}.
 */
class SecretHeapProbe {

  static void main(String[] args) {
    Path kubeconfig = Path.of(args[0])
    Path dump = Path.of(args[1])
    def options = ClusterOptions.DEFAULTS
    if (args[2] == 'no-scrub') {
      options = options.withoutSecretScrubbingForTests()
    }
    def outbox = new Outbox(64L << 20)
    def manager = new ClusterManager(outbox, new TasksConfig(10, 5), 10, options, { } as ClusterManager.Listener)
    manager.apply([ClusterSpecification.account('heap', kubeconfig, kinds: ['Secret'])])
    long deadline = System.currentTimeMillis() + 60_000 // generous: see Eventually
    // BEGIN, the planted Secret and a second one, END.
    while (!(manager.allSynced() && outbox.size('heap') >= 4) && System.currentTimeMillis() < deadline) {
      Thread.sleep(50)
    }
    if (!manager.allSynced()) {
      System.err.println("NOT SYNCED: ${manager.statuses()}")
      System.exit(2)
    }
    System.gc()
    ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean).dumpHeap(dump.toString(), true)
    println "DUMPED ${outbox.size('heap')} entries"
    manager.close()
    outbox.close()
    System.exit(0)
  }
}
