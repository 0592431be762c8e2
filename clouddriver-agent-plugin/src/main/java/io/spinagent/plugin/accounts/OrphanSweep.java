package io.spinagent.plugin.accounts;

import io.spinagent.common.DaemonThreads;
import io.spinagent.plugin.config.StartupPhases;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Removes the accounts orphaned for longer than the grace period, every tenth of it (at most 5s),
 * and tells its {@link Listener} (the dynamic accounts withdraw the removed ones from agents that
 * still hold them, and the ones another replica deleted from this replica's agents). Runs on one
 * thread of its own, {@code spinagent-orphan-sweep}, from when the agent port opens ({@link
 * StartupPhases#AGENT_PORT}) until it closes.
 */
public final class OrphanSweep implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(OrphanSweep.class);

  /** Hears of each sweep. */
  @FunctionalInterface
  public interface Listener {
    /** The accounts this sweep removed, orphaned past the grace period. */
    void removed(List<String> accounts);

    /**
     * After every sweep: settles what other replicas changed meanwhile, such as an account they
     * deleted while its agent was moving here.
     */
    default void swept() {}

    Listener NONE = accounts -> {};
  }

  private final AccountRegistry registry;
  private final Listener listener;
  private final Duration interval;
  private ScheduledExecutorService scheduler;

  public OrphanSweep(AccountRegistry registry, Listener listener, Duration gracePeriod) {
    this.registry = registry;
    this.listener = listener;
    this.interval = intervalFor(gracePeriod);
  }

  /** One sweep; what it throws is logged, and the next sweep tries again. */
  public void sweep() {
    try {
      List<String> removed = registry.expireOrphans();
      removed.forEach(
          name ->
              log.warn("Account '{}' removed: no agent returned within the grace period", name));
      if (!removed.isEmpty()) {
        listener.removed(removed);
      }
      registry.followSwitchesOn();
      listener.swept();
    } catch (RuntimeException e) {
      log.error("Sweeping orphaned accounts failed; will retry", e);
    }
  }

  /**
   * Often enough that an orphan outlives its grace period by at most a tenth of it (at most 5s).
   */
  static Duration intervalFor(Duration gracePeriod) {
    Duration tenth = gracePeriod.dividedBy(10);
    Duration max = Duration.ofSeconds(5);
    Duration min = Duration.ofMillis(50);
    return tenth.compareTo(max) > 0 ? max : tenth.compareTo(min) < 0 ? min : tenth;
  }

  @Override
  public synchronized void start() {
    if (scheduler == null) {
      scheduler =
          Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("spinagent-orphan-sweep"));
      // sweep() catches and logs what it throws: the future never holds a failure.
      var unused =
          scheduler.scheduleWithFixedDelay(
              this::sweep, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public synchronized void stop() {
    if (scheduler != null) {
      scheduler.shutdownNow();
      scheduler = null;
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return scheduler != null;
  }

  @Override
  public int getPhase() {
    return StartupPhases.AGENT_PORT;
  }
}
