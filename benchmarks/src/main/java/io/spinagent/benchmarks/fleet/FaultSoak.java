package io.spinagent.benchmarks.fleet;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The randomized fault soak (issue 20): real agents with several accounts each on test API servers,
 * a steady churn of changes, two Clouddriver replicas with the plugin on one database, and in every
 * round one or two faults chosen at random ({@link Fault}). After each round the churn stops and
 * the soak waits, up to a bound, for quiet: every agent alive with all its accounts READY and
 * nothing unacknowledged, every account ACTIVE, and the cache equal to the clusters object by
 * object ({@link QuietCheck}). With API churn ({@code --api-churn}), callers also create, switch on
 * and off, change and delete dynamic accounts through both replicas while the faults are injected
 * ({@link ApiChurn}), and quiet also means that the four views of every account agree ({@link
 * AccountViewsCheck}). A round that does not get there, or in which the plugin ended an agent's
 * session over an account ({@link SessionEndWatch}), is a failure, printed with the seed and the
 * round that reproduce it, and ends the soak (later rounds would start from a broken state).
 *
 * <p>The rounds' faults, their timing and the API operations come from the seed; the churn's
 * timing, and so the exact interleaving, does not.
 *
 * <pre>./mvnw -q -pl benchmarks -am -DskipTests verify -Pbenchmark -Dbenchmark.agentSync.skip
 *     -Dbenchmark.sql.skip -Dbenchmark.tunnel.skip -Dbenchmark.fleet.skip
 *     -Dbenchmark.soak.rounds=100 -Dbenchmark.soak.seed=42</pre>
 */
public final class FaultSoak {

  /** What a round may do to the fleet. */
  enum Fault {
    /** {@code kill -9} of an agent, restarted 1–4 s later. */
    AGENT_KILL("agent kill -9 and restart"),
    /**
     * {@code kill -9} of a Clouddriver replica; its agents' connections go to the other one (as a
     * load balancer would send them), and it is started again.
     */
    REPLICA_KILL("replica kill -9 and restart"),
    /** The database stopped for 1–4 s and started again. */
    DATABASE_RESTART("database restart"),
    /** An agent's connection to Clouddriver reset. */
    TCP_CUT("agent–plugin TCP cut"),
    /** An agent's connection (and its new ones) forwarding nothing for 3–12 s. */
    TCP_STALL("agent–plugin TCP stall"),
    /** A cluster's API server down for 1–4 s, its cluster changing meanwhile. */
    API_SERVER_RESTART("API server restart"),
    /**
     * A cluster changed and compacted while its API server is down, so that the agent's watches
     * resume from a compacted version: 410 Gone, then a listing.
     */
    WATCH_COMPACTION("watch compaction (410)"),
    /** An agent's connection moved to the other replica (cut, then reconnecting there). */
    OTHER_REPLICA("agent reconnects to the other replica");

    final String description;

    Fault(String description) {
      this.description = description;
    }
  }

  /** What the soak found. */
  static final class Result {
    final long seed;
    int roundsRun;
    int roundsClean;
    final Map<Fault, Integer> faults = new EnumMap<>(Fault.class);
    final List<Duration> recoveries = new ArrayList<>();
    Duration worstRecovery = Duration.ZERO;
    String worstRound = "";
    final List<String> failures = new ArrayList<>();

    /** Operations of the API churn, answered or not. */
    int apiOperations;

    /** Their answers by kind and API ({@link ApiChurn#answers()}). */
    Map<String, Map<String, Integer>> apiAnswers = Map.of();

    Result(long seed) {
      this.seed = seed;
    }

    boolean allClean() {
      return failures.isEmpty() && roundsClean == roundsRun;
    }
  }

  private final SoakOptions options;
  private final PrintStream out;
  private final Random random;
  private final Random churnRandom;
  private final Result result;
  private FleetDatabase database;
  private FleetDatabase.Scenario scenario;
  private final List<PluginReplica> replicas = new ArrayList<>();
  private final List<SoakCluster> clusters = new ArrayList<>();
  private final List<SoakAgent> agents = new ArrayList<>();
  private final Map<String, Integer> changes = new LinkedHashMap<>();
  private FleetEnvironment environment;
  private SoakCluster apiTarget;
  private ApiChurn apiChurn;
  private QuietCheck quiet;
  private SessionEndWatch sessionEnds;

  FaultSoak(SoakOptions options, PrintStream out) {
    this.options = options;
    this.out = out;
    this.random = new Random(options.seed());
    this.churnRandom = new Random(options.seed() + 1);
    this.result = new Result(options.seed());
  }

  public static void main(String[] args) {
    SoakOptions options = SoakOptions.parse(args);
    Result result = new FaultSoak(options, System.out).run();
    System.exit(result.allClean() ? 0 : 1);
  }

  /** Sets the fleet up, runs the rounds, prints the report and stops everything. */
  Result run() {
    Instant began = Instant.now();
    environment = new FleetEnvironment(options.fleet());
    out.printf(
        "%nFault soak: seed %d, %d rounds, %d agents × %d accounts of %d objects, 2 replicas on %s;"
            + " API churn %s; load %s%n",
        options.seed(),
        options.rounds(),
        options.agents(),
        options.accountsPerAgent(),
        options.objects(),
        options.database(),
        options.apiChurn() == 0
            ? "off"
            : options.apiChurn() + " operations a round on " + options.apiAccounts() + " accounts",
        FleetBenchmark.load());
    out.printf("  logs: %s%n", environment.logs());
    out.flush();
    try {
      setUp(began);
      for (int round = 1; round <= options.rounds(); round++) {
        if (!round(round)) {
          break;
        }
      }
    } finally {
      tearDown();
    }
    report();
    return result;
  }

  private void setUp(Instant began) {
    database = FleetDatabase.start(options.database());
    scenario = database.freshScenario("fault_soak");
    Map<String, String> properties = new HashMap<>(SoakTrace.PLUGIN_PROPERTIES);
    if (options.apiChurn() > 0) {
      // Accounts created through Clouddriver's /credentials go to the first agent (issue 34).
      properties.put("spinagent.accounts.credentials-interceptor.enabled", "true");
      properties.put(
          "spinagent.accounts.credentials-interceptor.agent-id", ApiChurn.CREDENTIALS_AGENT);
    }
    replicas.add(new PluginReplica("a", environment, scenario, true, properties));
    replicas.add(new PluginReplica("b", environment, scenario, true, properties));
    List<String> agentJvmOptions = SoakTrace.agentJvmOptions(environment.work());
    // One after the other: the first creates the schema.
    replicas.get(0).start();
    replicas.get(1).start();
    Path kubeconfigs = environment.work().resolve("kubeconfigs");
    try {
      Files.createDirectories(kubeconfigs);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (int a = 1; a <= options.agents(); a++) {
      List<SoakCluster> own = new ArrayList<>();
      for (int c = 1; c <= options.accountsPerAgent(); c++) {
        SoakCluster cluster =
            new SoakCluster("soak-" + a + "-" + c, kubeconfigs, options.objects());
        own.add(cluster);
        clusters.add(cluster);
      }
      SoakAgent agent =
          new SoakAgent(
              "soak-agent-" + a, environment, own, replicas.get((a - 1) % 2), agentJvmOptions);
      agents.add(agent);
      agent.start();
    }
    if (options.apiChurn() > 0) {
      apiTarget = new SoakCluster("api-target", kubeconfigs, 10);
      apiChurn =
          new ApiChurn(
              options.apiAccounts(), agents, replicas, apiTarget.kubeconfig(), options.seed() + 2);
    }
    quiet =
        new QuietCheck(
            agents,
            clusters,
            new AccountViewsCheck(scenario, replicas, agents),
            apiChurn == null ? Map.of() : apiChurn.accounts(),
            scenario,
            options.database());
    sessionEnds = new SessionEndWatch(environment.logs(), began);
    long start = System.nanoTime();
    List<String> issues = awaitQuiet(options.startLimit());
    if (!issues.isEmpty()) {
      result.failures.add("the fleet never settled after start: " + String.join("; ", issues));
      throw new IllegalStateException(result.failures.get(0));
    }
    out.printf(
        "  started: %d accounts ACTIVE, cache equal to the clusters (%d records) after %.1f s%n",
        clusters.size(),
        SoakComparison.expected(clusters).size(),
        (System.nanoTime() - start) / 1e9);
    out.flush();
  }

  /** One round; false when it failed. */
  private boolean round(int round) {
    result.roundsRun++;
    long roundStart = System.nanoTime();
    List<Fault> faults = chooseFaults();
    AtomicBoolean churning = new AtomicBoolean(true);
    Thread churn = new Thread(() -> churn(churning), "fault-soak-churn");
    churn.setDaemon(true);
    churn.start();
    Thread callers = new Thread(this::callApi, "fault-soak-api-churn");
    callers.setDaemon(true);
    callers.start();
    long quietFrom;
    try {
      sleep(Duration.ofMillis(1000 + random.nextInt(1500)));
      for (Fault fault : faults) {
        inject(fault);
        result.faults.merge(fault, 1, Integer::sum);
      }
      sleep(Duration.ofSeconds(1));
    } finally {
      churning.set(false);
      join(churn);
      join(callers);
      if (apiChurn != null) {
        result.apiOperations = apiChurn.total();
        result.apiAnswers = apiChurn.answers();
      }
      quietFrom = System.nanoTime();
    }
    List<String> issues = awaitQuiet(options.quietLimit());
    Duration recovery = Duration.ofNanos(System.nanoTime() - quietFrom);
    String names = faults.stream().map(Enum::name).toList().toString();
    String problem = "not quiet within " + options.quietLimit().toSeconds() + " s";
    if (issues.isEmpty()) {
      issues = sessionEnds.sinceLastCall();
      problem = "the plugin ended agents' sessions over an account";
    }
    if (!issues.isEmpty()) {
      String failure =
          String.format(
              "round %d (seed %d) %s: %s:%n    %s",
              round,
              options.seed(),
              names,
              problem,
              String.join("\n    ", issues.subList(0, Math.min(issues.size(), 30))));
      result.failures.add(failure);
      out.println("  FAILED " + failure);
      out.println("    objects per account, in the cluster / at its agent:");
      for (SoakAgent agent : agents) {
        Map<String, Long> known = agent.objectsByAccount();
        for (SoakCluster cluster : agent.clusters()) {
          out.printf(
              "      %s: %d / %s%n",
              cluster.account(),
              cluster.objects().size(),
              known.containsKey(cluster.account()) ? known.get(cluster.account()) : "?");
        }
      }
      String kept =
          String.format(
              "failed-seed-%d-round-%d-%d", options.seed(), round, System.currentTimeMillis());
      out.println("    the processes' logs until now: " + environment.keepLogs(kept));
      out.flush();
      return false;
    }
    result.roundsClean++;
    result.recoveries.add(recovery);
    if (recovery.compareTo(result.worstRecovery) > 0) {
      result.worstRecovery = recovery;
      result.worstRound = "round " + round + " " + names;
    }
    out.printf(
        "  round %3d clean in %5.1f s (round %5.1f s): %s%s%n",
        round,
        recovery.toMillis() / 1000.0,
        (System.nanoTime() - roundStart) / 1e9,
        names,
        apiChurn == null ? "" : "; dynamic accounts " + quiet.dynamicStates());
    out.flush();
    return true;
  }

  private List<Fault> chooseFaults() {
    List<Fault> all = new ArrayList<>(List.of(Fault.values()));
    Collections.shuffle(all, random);
    int count = random.nextInt(3) == 0 ? 2 : 1;
    List<Fault> chosen = new ArrayList<>(all.subList(0, count));
    // Two replica faults in one round could leave no replica to take over.
    if (chosen.contains(Fault.REPLICA_KILL) && chosen.contains(Fault.DATABASE_RESTART)) {
      chosen.remove(Fault.DATABASE_RESTART);
    }
    return chosen;
  }

  private void inject(Fault fault) {
    switch (fault) {
      case AGENT_KILL -> {
        SoakAgent agent = pick(agents);
        agent.kill();
        sleep(Duration.ofMillis(1000 + random.nextInt(3000)));
        agent.start();
      }
      case REPLICA_KILL -> {
        PluginReplica killed = pick(replicas);
        PluginReplica survivor = other(killed);
        for (SoakAgent agent : agents) {
          if (agent.replica() == killed) {
            agent.pointAt(survivor);
          }
        }
        killed.process().kill();
        sleep(Duration.ofMillis(1000 + random.nextInt(2000)));
        killed.start();
      }
      case DATABASE_RESTART -> database.restart(Duration.ofMillis(1000 + random.nextInt(3000)));
      case TCP_CUT -> pick(agents).cutConnection();
      case TCP_STALL -> {
        SoakAgent agent = pick(agents);
        agent.stallConnection();
        try {
          sleep(Duration.ofMillis(3000 + random.nextInt(9000)));
        } finally {
          agent.resumeConnection();
        }
      }
      case API_SERVER_RESTART -> {
        try {
          pick(clusters).restartApiServer(Duration.ofMillis(1000 + random.nextInt(3000)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
      case WATCH_COMPACTION -> pick(clusters).compactWhileAway(new Random(random.nextLong()));
      case OTHER_REPLICA -> {
        SoakAgent agent = pick(agents);
        agent.pointAt(other(agent.replica()));
        agent.cutConnection();
      }
    }
  }

  /** The round's API operations, if any. */
  private void callApi() {
    if (apiChurn != null) {
      apiChurn.run(options.apiChurn());
    }
  }

  private void churn(AtomicBoolean churning) {
    long interval = Math.max(1, (long) (1000 / options.changesPerSecond()));
    while (churning.get()) {
      SoakCluster cluster = clusters.get(churnRandom.nextInt(clusters.size()));
      String kind = cluster.change(churnRandom);
      synchronized (changes) {
        changes.merge(kind, 1, Integer::sum);
      }
      try {
        Thread.sleep(interval);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * Waits up to {@code limit} for quiet; returns what was still wrong at the end (empty: quiet).
   */
  private List<String> awaitQuiet(Duration limit) {
    long start = System.nanoTime();
    long deadline = start + limit.toNanos();
    long nextProgress = start + Duration.ofSeconds(30).toNanos();
    List<String> issues;
    do {
      issues = quiet.unsettled();
      if (issues.isEmpty()) {
        return issues;
      }
      if (System.nanoTime() > nextProgress) {
        // What it waits for, in case it never comes: the log then says since when.
        out.printf(
            "    still waiting after %d s: %s%n",
            Duration.ofNanos(System.nanoTime() - start).toSeconds(),
            String.join("; ", issues.subList(0, Math.min(3, issues.size()))));
        out.flush();
        nextProgress += Duration.ofSeconds(30).toNanos();
      }
      sleep(Duration.ofSeconds(1));
    } while (System.nanoTime() < deadline);
    return issues;
  }

  private void report() {
    out.printf(
        "%nFault soak: seed %d: %d rounds run, %d clean%n",
        result.seed, result.roundsRun, result.roundsClean);
    out.println("  faults injected:");
    result.faults.forEach((fault, n) -> out.printf("    %-40s %4d%n", fault.description, n));
    synchronized (changes) {
      out.printf("  changes made: %s%n", changes);
    }
    if (apiChurn != null) {
      apiChurn.report(out);
    }
    result.failures.forEach(f -> out.println("  FAILED " + f));
    // the same seed makes the same rounds only with the same fleet and database
    out.printf(
        "  reproduce: ./mvnw -q -pl benchmarks -am -DskipTests verify -Pbenchmark"
            + " -Dbenchmark.agentSync.skip -Dbenchmark.sql.skip -Dbenchmark.tunnel.skip"
            + " -Dbenchmark.fleet.skip -Dbenchmark.soak.seed=%d -Dbenchmark.soak.rounds=%d"
            + " -Dbenchmark.soak.agents=%d -Dbenchmark.soak.accounts=%d"
            + " -Dbenchmark.soak.objects=%d -Dbenchmark.soak.rate=%s"
            + " -Dbenchmark.soak.database=%s -Dbenchmark.soak.apiChurn=%d"
            + " -Dbenchmark.soak.apiAccounts=%d%n",
        result.seed,
        result.roundsRun,
        options.agents(),
        options.accountsPerAgent(),
        options.objects(),
        BigDecimal.valueOf(options.changesPerSecond()).stripTrailingZeros().toPlainString(),
        options.database(),
        options.apiChurn(),
        options.apiAccounts());
    out.flush();
  }

  private void tearDown() {
    List<AutoCloseable> all = new ArrayList<>(agents);
    all.addAll(replicas);
    all.addAll(clusters);
    if (apiTarget != null) {
      all.add(apiTarget);
    }
    for (AutoCloseable closeable : all) {
      try {
        closeable.close();
      } catch (Exception e) {
        out.println("  could not stop " + closeable + ": " + e);
      }
    }
    if (database != null) {
      database.close();
    }
  }

  private PluginReplica other(PluginReplica replica) {
    return replicas.get(0) == replica ? replicas.get(1) : replicas.get(0);
  }

  private <T> T pick(List<T> list) {
    return list.get(random.nextInt(list.size()));
  }

  private static void join(Thread thread) {
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
