package io.spinagent.plugin.accounts;

import io.spinagent.common.DaemonThreads;
import io.spinagent.plugin.accounts.DynamicAccounts.MigrationResult;
import io.spinagent.plugin.config.SpinAgentProperties;
import io.spinagent.plugin.config.StartupPhases;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Migrates Clouddriver's Kubernetes accounts whose names match {@code
 * spinagent.accounts.auto-migrate.name-patterns} (accounts in account storage) or {@code
 * configured-name-patterns} (accounts of Clouddriver's configuration files) to the agents of a zone
 * (or one agent), as {@code POST /spinagent/accounts/migrate} would, a batch per scan on its own
 * thread ({@code spinagent-auto-migrate}). Each replica migrates only to agents connected to it, so
 * with several replicas the one holding the agents' stream does it. Off (no thread) while no
 * pattern is given.
 */
public final class AutoMigration implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(AutoMigration.class);

  private final List<Pattern> patterns;
  private final List<Pattern> configuredPatterns;
  private final MigrationTarget target;
  private final Duration interval;
  private final int batchSize;
  private final Optional<ClouddriverAccountDefinitions> clouddriver;
  private final AccountStore store;
  private final AccountRegistry registry;
  private final ConnectedAgents connected;
  private final DynamicAccounts dynamicAccounts;

  /** The last failure logged per account, so a failure repeated every scan is logged once. */
  private final Map<String, String> failures = new HashMap<>();

  private ScheduledExecutorService scanner;

  /**
   * @throws IllegalArgumentException when the settings cannot work (a pattern that is not a regular
   *     expression, patterns without exactly one of zone-id and agent-id): Clouddriver does not
   *     start
   */
  public AutoMigration(
      SpinAgentProperties.AutoMigrate settings,
      Optional<ClouddriverAccountDefinitions> clouddriver,
      AccountStore store,
      AccountRegistry registry,
      ConnectedAgents connected,
      DynamicAccounts dynamicAccounts) {
    this.patterns = compile("name-patterns", settings.getNamePatterns());
    this.configuredPatterns =
        compile("configured-name-patterns", settings.getConfiguredNamePatterns());
    this.interval = settings.getScanInterval();
    this.batchSize = settings.getBatchSize();
    this.clouddriver = clouddriver;
    this.store = store;
    this.registry = registry;
    this.connected = connected;
    this.dynamicAccounts = dynamicAccounts;
    this.target =
        on()
            ? MigrationTarget.of(
                "spinagent.accounts.auto-migrate (name patterns are set)",
                settings.getZoneId(),
                settings.getAgentId(),
                "the matching accounts")
            : null;
    if (on() && (batchSize < 1 || interval.isNegative() || interval.isZero())) {
      throw new IllegalArgumentException(
          "spinagent.accounts.auto-migrate: batch-size must be at least 1 and scan-interval"
              + " positive");
    }
  }

  /** Migrates up to a batch of matching accounts not yet under SpinAgent; returns their results. */
  List<MigrationResult> scan() {
    if (clouddriver.isEmpty() || !agentsHere()) {
      return List.of();
    }
    List<String> candidates = new ArrayList<>();
    addCandidates(clouddriver.get().kubernetesAccountNames(), patterns, candidates);
    if (!configuredPatterns.isEmpty()) {
      addCandidates(
          clouddriver.get().configuredKubernetesAccountNames(), configuredPatterns, candidates);
    }
    if (candidates.isEmpty()) {
      return List.of();
    }
    List<MigrationResult> results =
        dynamicAccounts.migrate(candidates, target.agentId(), target.zoneId());
    for (MigrationResult result : results) {
      if (result.migrated()) {
        failures.remove(result.name());
        log.info(
            "Clouddriver account '{}' matches spinagent.accounts.auto-migrate's patterns:"
                + " migrated",
            result.name());
      } else if (!result.error().equals(failures.put(result.name(), result.error()))) {
        log.warn(
            "Clouddriver account '{}' matches spinagent.accounts.auto-migrate's patterns but"
                + " cannot be migrated (tried again every {}): {}",
            result.name(),
            interval,
            result.error());
      }
    }
    return results;
  }

  private void addCandidates(List<String> names, List<Pattern> wanted, List<String> candidates) {
    for (String name : names) {
      if (candidates.size() == batchSize) {
        return;
      }
      if (wanted.stream().anyMatch(pattern -> pattern.matcher(name).matches())
          && !candidates.contains(name)
          && !known(name)) {
        candidates.add(name);
      }
    }
  }

  private boolean on() {
    return !patterns.isEmpty() || !configuredPatterns.isEmpty();
  }

  /** Already SpinAgent's: an agent serves it, or it is stored (its definition is ours). */
  private boolean known(String name) {
    return registry.find(name).isPresent()
        || store.find(name).filter(a -> a.state() != AccountState.REMOVED).isPresent();
  }

  private boolean agentsHere() {
    return connected.all().stream()
        .anyMatch(agent -> target.includes(agent.agentId(), agent.zoneId()));
  }

  private void scanLogged() {
    try {
      scan();
    } catch (RuntimeException e) {
      log.warn(
          "Scanning Clouddriver's accounts for spinagent.accounts.auto-migrate failed; trying again"
              + " in {}",
          interval,
          e);
    }
  }

  @Override
  public synchronized void start() {
    if (!on() || scanner != null) {
      return;
    }
    scanner =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("spinagent-auto-migrate"));
    // scanLogged() catches and logs what a scan throws: the future never holds a failure.
    ScheduledFuture<?> unused =
        scanner.scheduleWithFixedDelay(
            this::scanLogged, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    log.info(
        "Migrating Clouddriver accounts named {} (account storage) and {} (configuration files)"
            + " to {} every {}, {} per scan",
        patterns,
        configuredPatterns,
        target,
        interval,
        batchSize);
  }

  @Override
  public synchronized void stop() {
    if (scanner != null) {
      scanner.shutdownNow();
      scanner = null;
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return scanner != null;
  }

  /** With the agent port: there are agents to migrate to. */
  @Override
  public int getPhase() {
    return StartupPhases.AGENT_PORT;
  }

  private static List<Pattern> compile(String key, List<String> given) {
    List<Pattern> compiled = new ArrayList<>();
    for (int i = 0; i < given.size(); i++) {
      try {
        compiled.add(Pattern.compile(given.get(i)));
      } catch (PatternSyntaxException e) {
        throw new IllegalArgumentException(
            "spinagent.accounts.auto-migrate."
                + key
                + "["
                + i
                + "]: '"
                + given.get(i)
                + "' is not a regular expression: "
                + e.getDescription(),
            e);
      }
    }
    return List.copyOf(compiled);
  }
}
