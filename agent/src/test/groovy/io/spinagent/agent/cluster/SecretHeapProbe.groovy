package io.spinagent.agent.cluster

import com.sun.management.HotSpotDiagnosticMXBean
import io.spinagent.agent.config.TasksConfig
import io.spinagent.agent.stream.Outbox
import io.spinagent.protocol.v1.AccountInfo

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
    ClusterManager manager
    manager = new ClusterManager(outbox, new TasksConfig(10, 5), 10, options, { List<AccountInfo> accounts ->
      accounts.each { manager.decided(ClusterSpecification.caching(it.name)) }
    } as ClusterManager.Listener)
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
    // A connection closed just before (the listing's, its TLS buffers holding the response) is
    // unreachable but waits for finalization, and a heap dump of live objects counts what waits;
    // let pending finalization run first (a few rounds: the JVM queues finalizers on a thread of
    // its own), so that the dump shows what the agent keeps, not when the JVM collects.
    5.times {
      System.gc()
      System.runFinalization()
      Thread.sleep(100)
    }
    ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean).dumpHeap(dump.toString(), true)
    println "DUMPED ${outbox.size('heap')} entries"
    manager.close()
    outbox.close()
    System.exit(0)
  }
}
