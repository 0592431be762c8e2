package io.spinagent.benchmarks.fleet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What {@link FaultSoak} runs, from its {@code --name=value} arguments (the Maven properties {@code
 * benchmark.soak.*} of the {@code benchmark} profile). An empty value keeps the default.
 *
 * @param rounds rounds to run ({@code --rounds}, 100)
 * @param seed the seed of the rounds' faults ({@code --seed}; default: a random one, printed)
 * @param agents agents ({@code --agents}, 3)
 * @param accountsPerAgent accounts of each agent, each a cluster of its own ({@code --accounts}, 3)
 * @param objects objects of each cluster's application ({@code --objects}, 20)
 * @param changesPerSecond churn over all clusters during a round ({@code --rate}, 20)
 * @param quietLimit how long a round may take to get quiet before it fails ({@code --quiet-limit},
 *     180 s)
 * @param startLimit how long the fleet may take to settle after starting ({@code --start-limit},
 *     300 s)
 * @param database {@code postgres} or {@code mariadb} ({@code --database}, postgres)
 * @param apiChurn operations on dynamic accounts through the replicas' REST APIs in each round,
 *     while its faults are injected ({@code --api-churn}, 0: none; see {@link ApiChurn})
 * @param apiAccounts names of dynamic accounts those operations choose from ({@code
 *     --api-accounts}, 6)
 * @param fleet the fleet benchmark's options it shares: {@code --agent-jar}, {@code --bundle},
 *     {@code --host-classpath}, {@code --work}, {@code --agent-java}, {@code --agent-heap} (512m),
 *     {@code --plugin-heap} (1g)
 */
record SoakOptions(
    int rounds,
    long seed,
    int agents,
    int accountsPerAgent,
    int objects,
    double changesPerSecond,
    Duration quietLimit,
    Duration startLimit,
    String database,
    int apiChurn,
    int apiAccounts,
    FleetOptions fleet) {

  private static final Set<String> SHARED =
      Set.of(
          "agent-jar",
          "bundle",
          "host-classpath",
          "work",
          "agent-java",
          "agent-heap",
          "plugin-heap");

  static SoakOptions parse(String[] args) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("rounds", "100");
    o.put("seed", "");
    o.put("agents", "3");
    o.put("accounts", "3");
    o.put("objects", "20");
    o.put("rate", "20");
    o.put("quiet-limit", "180");
    o.put("start-limit", "300");
    o.put("database", "postgres");
    o.put("api-churn", "0");
    o.put("api-accounts", "6");
    Map<String, String> shared = new LinkedHashMap<>();
    shared.put("agent-heap", "512m");
    shared.put("plugin-heap", "1g");
    shared.put("work", "benchmarks/target/fault-soak");
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (!arg.startsWith("--") || eq < 0) {
        throw new IllegalArgumentException("arguments are --name=value, got '" + arg + "'");
      }
      String name = arg.substring(2, eq);
      String value = arg.substring(eq + 1).trim();
      if (SHARED.contains(name)) {
        if (!value.isEmpty()) {
          shared.put(name, value);
        }
      } else if (!o.containsKey(name)) {
        throw new IllegalArgumentException(
            "unknown option --" + name + "; known: " + o.keySet() + ", " + SHARED);
      } else if (!value.isEmpty()) {
        // Maven passes an unset property as empty: keep the default then.
        o.put(name, value);
      }
    }
    List<String> fleetArgs = new ArrayList<>();
    shared.forEach((k, v) -> fleetArgs.add("--" + k + "=" + v));
    long seed = o.get("seed").isEmpty() ? System.nanoTime() : Long.parseLong(o.get("seed"));
    SoakOptions options =
        new SoakOptions(
            Integer.parseInt(o.get("rounds")),
            seed,
            Integer.parseInt(o.get("agents")),
            Integer.parseInt(o.get("accounts")),
            Integer.parseInt(o.get("objects")),
            Double.parseDouble(o.get("rate")),
            Duration.ofSeconds(Long.parseLong(o.get("quiet-limit"))),
            Duration.ofSeconds(Long.parseLong(o.get("start-limit"))),
            o.get("database"),
            Integer.parseInt(o.get("api-churn")),
            Integer.parseInt(o.get("api-accounts")),
            FleetOptions.parse(fleetArgs.toArray(String[]::new)));
    if (options.agents() < 1 || options.accountsPerAgent() < 1 || options.objects() < 10) {
      throw new IllegalArgumentException("at least 1 agent, 1 account each and 10 objects");
    }
    if (options.changesPerSecond() <= 0) {
      throw new IllegalArgumentException("--rate must be positive");
    }
    if (options.apiChurn() < 0 || options.apiAccounts() < 1) {
      throw new IllegalArgumentException(
          "--api-churn must be 0 (none) or more, --api-accounts at least 1");
    }
    return options;
  }
}
