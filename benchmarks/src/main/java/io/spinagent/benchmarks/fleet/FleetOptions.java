package io.spinagent.benchmarks.fleet;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@link FleetBenchmark} runs, from its {@code --name=value} arguments (the Maven properties
 * {@code benchmark.fleet.*} of the {@code benchmark} profile). Every option has a default; {@code
 * --quick=true} changes the defaults to a short check (20 accounts, 50 simulated agents, PostgreSQL
 * only, 10 s latency phases).
 *
 * @param agentScales accounts of the one agent, one run per scale ({@code --agent-scales}, default
 *     200,1000; 0: no agent runs)
 * @param pluginAgents simulated agents connected to the plugin ({@code --plugin-agents}, default
 *     1000; 0: no plugin runs)
 * @param simulatedObjects objects of each simulated agent's account ({@code --simulated-objects},
 *     20)
 * @param seconds length of each latency phase ({@code --seconds}, 30), after a third as long to
 *     warm up
 * @param databases databases for the plugin runs ({@code --databases}, postgres,mariadb); the agent
 *     runs use the first
 * @param restarts whether the restart scenarios run ({@code --restarts}, true)
 * @param growth objects added to every cluster, once the agent (and the baseline) are measured, to
 *     measure the heap each further object costs ({@code --growth}, 110, about the size of a
 *     cluster; 0: not measured)
 * @param isolationAccounts healthy accounts of the isolation scenario ({@code
 *     --isolation-accounts}, 10; 0: not run); it runs on the first database, with {@code seconds}
 *     per phase
 * @param agentJava the {@code java} of the agent's JDK ({@code --agent-java}; default: the newest
 *     JDK of at least 21 found, see {@link Jdks})
 * @param agentHeap the agent's (and its baseline's) {@code -Xmx} ({@code --agent-heap}, 4g)
 * @param pluginHeap each Clouddriver replica's {@code -Xmx} ({@code --plugin-heap}, 2g)
 * @param pluginProperties plugin settings for every replica ({@code --plugin-properties},
 *     comma-separated {@code key=value}, e.g. {@code spinagent.cache.writer-threads=2}; none by
 *     default)
 * @param threadGuard a process over this many threads is stopped, before it takes the machine's
 *     last thread ids ({@code --thread-guard}, 12000)
 * @param activeTimeout how long to wait for all accounts to be ACTIVE ({@code --active-timeout},
 *     600 s)
 * @param agentJar the agent's runnable jar ({@code --agent-jar})
 * @param bundle the plugin's release bundle ({@code --bundle})
 * @param hostClasspath file holding the Clouddriver stand-in's class path ({@code
 *     --host-classpath}, the {@code runtime.classpath} of a clouddriver-stand-in module)
 * @param work where logs and generated files go ({@code --work})
 */
record FleetOptions(
    List<Integer> agentScales,
    int pluginAgents,
    int simulatedObjects,
    Duration seconds,
    List<String> databases,
    boolean restarts,
    int growth,
    int isolationAccounts,
    String agentJava,
    String agentHeap,
    String pluginHeap,
    Map<String, String> pluginProperties,
    int threadGuard,
    Duration activeTimeout,
    Path agentJar,
    Path bundle,
    Path hostClasspath,
    Path work) {

  static FleetOptions parse(String[] args) {
    Map<String, String> given = new LinkedHashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (!arg.startsWith("--") || eq < 0) {
        throw new IllegalArgumentException("arguments are --name=value, got '" + arg + "'");
      }
      given.put(arg.substring(2, eq), arg.substring(eq + 1).trim());
    }
    boolean quick = Boolean.parseBoolean(given.getOrDefault("quick", "false"));
    Map<String, String> o = new LinkedHashMap<>();
    o.put("agent-scales", quick ? "20" : "200,1000");
    o.put("plugin-agents", quick ? "50" : "1000");
    o.put("simulated-objects", "20");
    o.put("seconds", quick ? "10" : "30");
    o.put("databases", quick ? "postgres" : "postgres,mariadb");
    o.put("restarts", "true");
    o.put("growth", quick ? "20" : "110");
    o.put("isolation-accounts", quick ? "4" : "10");
    o.put("agent-java", "");
    o.put("agent-heap", "4g");
    o.put("plugin-heap", "2g");
    o.put("plugin-properties", "");
    o.put("thread-guard", "12000");
    o.put("active-timeout", "600");
    o.put("agent-jar", "agent/target/spinagent-agent.jar");
    o.put("bundle", "");
    o.put("host-classpath", "clouddriver-stand-in/spinnaker-2026.2/target/runtime.classpath");
    o.put("work", "benchmarks/target/fleet-benchmark");
    for (Map.Entry<String, String> entry : given.entrySet()) {
      if (!entry.getKey().equals("quick") && !o.containsKey(entry.getKey())) {
        throw new IllegalArgumentException(
            "unknown option --" + entry.getKey() + "; known: " + o.keySet() + ", quick");
      }
      // Maven passes an unset property as empty: keep the default then.
      if (!entry.getValue().isEmpty() && !entry.getKey().equals("quick")) {
        o.put(entry.getKey(), entry.getValue());
      }
    }
    return new FleetOptions(
        integers(o.get("agent-scales")),
        Integer.parseInt(o.get("plugin-agents")),
        Integer.parseInt(o.get("simulated-objects")),
        Duration.ofSeconds(Long.parseLong(o.get("seconds"))),
        strings(o.get("databases")),
        Boolean.parseBoolean(o.get("restarts")),
        Integer.parseInt(o.get("growth")),
        Integer.parseInt(o.get("isolation-accounts")),
        o.get("agent-java"),
        o.get("agent-heap"),
        o.get("plugin-heap"),
        properties(o.get("plugin-properties")),
        Integer.parseInt(o.get("thread-guard")),
        Duration.ofSeconds(Long.parseLong(o.get("active-timeout"))),
        Path.of(o.get("agent-jar")).toAbsolutePath(),
        o.get("bundle").isEmpty() ? null : Path.of(o.get("bundle")).toAbsolutePath(),
        Path.of(o.get("host-classpath")).toAbsolutePath(),
        Path.of(o.get("work")).toAbsolutePath());
  }

  private static List<Integer> integers(String list) {
    return strings(list).stream().map(Integer::parseInt).filter(n -> n > 0).toList();
  }

  private static Map<String, String> properties(String list) {
    Map<String, String> properties = new LinkedHashMap<>();
    for (String entry : strings(list)) {
      int eq = entry.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--plugin-properties: '" + entry + "' is not key=value");
      }
      properties.put(entry.substring(0, eq).trim(), entry.substring(eq + 1).trim());
    }
    return properties;
  }

  private static List<String> strings(String list) {
    return Arrays.stream(list.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }
}
