package io.spinagent.plugin.ha;

import io.micrometer.core.instrument.MeterRegistry;
import io.spinagent.plugin.accounts.AccountLifecycleListener;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AgentAccount;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records which accounts this replica owns: an account whose agent streams to this replica is
 * claimed when the agent connects (the latest connection wins), renewed every heartbeat interval,
 * and given up when the agent leaves or the replica stops. Database work runs on one thread of its
 * own, in the order the account changes happened, never on the session's thread.
 */
public final class OwnershipKeeper implements AccountLifecycleListener {

  private static final Logger log = LoggerFactory.getLogger(OwnershipKeeper.class);

  private final AccountOwnerTable table;
  private final String replicaId;
  private final Supplier<String> forwardUrl;
  private final HaProperties properties;
  private final MeterRegistry meters;
  private final Clock clock;

  /** Accounts whose streaming agent is connected here, with that agent's id. */
  private final Map<String, String> served = new ConcurrentHashMap<>();

  /** Served accounts another live replica owns; logged once, not on every heartbeat. */
  private final Set<String> ownedElsewhere = ConcurrentHashMap.newKeySet();

  private final Set<String> owned = ConcurrentHashMap.newKeySet();

  /**
   * Accounts whose agent connected here and whose claim is not recorded yet (queued, or failed and
   * made again at the next heartbeat); the heartbeat leaves them to the claim.
   */
  private final Set<String> pendingClaims = ConcurrentHashMap.newKeySet();

  private final HeartbeatThread thread = new HeartbeatThread("spinagent-ownership");

  public OwnershipKeeper(
      AccountOwnerTable table,
      String replicaId,
      Supplier<String> forwardUrl,
      HaProperties properties,
      MeterRegistry meters,
      Clock clock) {
    this.table = table;
    this.replicaId = replicaId;
    this.forwardUrl = forwardUrl;
    this.properties = properties;
    this.meters = meters;
    this.clock = clock;
    meters.gauge("spinagent.ha.accounts.owned", owned, Set::size);
  }

  public String replicaId() {
    return replicaId;
  }

  public Duration ownerTimeout() {
    return properties.getOwnerTimeout();
  }

  /** The recorded owner of {@code account}, read from the database now. */
  public Optional<AccountOwner> ownerOf(String account) {
    return table.find(account);
  }

  /** The owner of {@code account} when it is another replica that renewed its claim in time. */
  public Optional<AccountOwner> liveOwnerElsewhere(String account) {
    return ownerOf(account)
        .filter(owner -> !owner.replicaId().equals(replicaId))
        .filter(owner -> owner.isLive(clock.instant(), properties.getOwnerTimeout()));
  }

  @Override
  public void onStateChange(AgentAccount account, AccountState previous) {
    String name = account.name();
    boolean streamedHere =
        (account.state() == AccountState.ACTIVATING || account.state() == AccountState.ACTIVE)
            && account.cachingAgentId() != null;
    if (streamedHere) {
      String before = served.put(name, account.cachingAgentId());
      if (!account.cachingAgentId().equals(before)) {
        pendingClaims.add(name);
        run(() -> acquire(name, account.cachingAgentId()));
      }
    } else if (served.remove(name) != null) {
      run(() -> release(name));
    }
  }

  public void start() {
    Duration interval = properties.getHeartbeatInterval();
    thread.start(this::heartbeat, interval, interval);
    log.info(
        "Replica '{}' records account ownership (heartbeat {}, owner timeout {}), forwarding"
            + " endpoint {}",
        replicaId,
        properties.getHeartbeatInterval(),
        properties.getOwnerTimeout(),
        forwardUrl.get());
  }

  /**
   * Gives up every account, so the other replicas answer "no owner" at once instead of after the
   * timeout.
   */
  public void stop() {
    try {
      if (!thread.stop()) {
        return;
      }
      int released = table.releaseAll(replicaId);
      meters.counter("spinagent.ha.ownership.changes", "change", "released").increment(released);
      owned.clear();
      log.info("Replica '{}' stopping: released its {} account(s)", replicaId, released);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.warn(
          "Replica '{}' could not release its accounts while stopping; other replicas treat them as"
              + " gone after spinagent.ha.owner-timeout ({}): {}",
          replicaId,
          properties.getOwnerTimeout(),
          e.toString());
    }
  }

  private void run(Runnable task) {
    thread.execute(
        () -> {
          try {
            task.run();
          } catch (RuntimeException e) {
            log.warn(
                "Replica '{}': recording account ownership failed (retried at the next heartbeat):"
                    + " {}",
                replicaId,
                e.toString());
          }
        });
  }

  private void acquire(String account, String agentId) {
    if (!agentId.equals(served.get(account)) || !pendingClaims.contains(account)) {
      return; // the agent left again, or a heartbeat made the claim, before this ran
    }
    Instant now = clock.instant();
    table.acquire(new AccountOwner(account, replicaId, forwardUrl.get(), agentId, now, now));
    pendingClaims.remove(account);
    owned.add(account);
    ownedElsewhere.remove(account);
    meters.counter("spinagent.ha.ownership.changes", "change", "acquired").increment();
    log.info("Replica '{}' owns account '{}' (agent '{}')", replicaId, account, agentId);
  }

  private void release(String account) {
    if (served.containsKey(account)) {
      return; // the agent came back before this ran
    }
    pendingClaims.remove(account);
    owned.remove(account);
    ownedElsewhere.remove(account);
    if (table.release(account, replicaId)) {
      meters.counter("spinagent.ha.ownership.changes", "change", "released").increment();
      log.info("Replica '{}' released account '{}': its agent left", replicaId, account);
    }
  }

  private void heartbeat() {
    try {
      for (String account : Set.copyOf(pendingClaims)) {
        String agentId = served.get(account);
        if (agentId == null) {
          pendingClaims.remove(account);
        } else {
          acquire(account, agentId);
        }
      }
      Instant now = clock.instant();
      Set<String> stillOwned = table.heartbeat(replicaId, now);
      Set<String> nowOwned = new HashSet<>(stillOwned);
      nowOwned.retainAll(served.keySet());
      for (Map.Entry<String, String> entry : Map.copyOf(served).entrySet()) {
        String account = entry.getKey();
        if (stillOwned.contains(account) || pendingClaims.contains(account)) {
          continue;
        }
        AccountOwner claim =
            new AccountOwner(account, replicaId, forwardUrl.get(), entry.getValue(), now, now);
        if (table.takeOverIfStale(claim, now.minus(properties.getOwnerTimeout()))) {
          nowOwned.add(account);
          ownedElsewhere.remove(account);
          meters.counter("spinagent.ha.ownership.changes", "change", "taken_over").increment();
          log.info(
              "Replica '{}' took over account '{}' (agent '{}'): it had no live owner",
              replicaId,
              account,
              entry.getValue());
        } else if (ownedElsewhere.add(account)) {
          meters.counter("spinagent.ha.ownership.changes", "change", "lost").increment();
          log.warn(
              "Account '{}' is owned by another replica ({}): agent '{}' connected there later;"
                  + " this replica's session of it is stale",
              account,
              table.find(account).map(AccountOwner::replicaId).orElse("unknown"),
              entry.getValue());
        }
      }
      Set<String> leftover = new HashSet<>(stillOwned);
      leftover.removeAll(served.keySet());
      for (String account : leftover) {
        release(account);
      }
      owned.retainAll(nowOwned);
      owned.addAll(nowOwned);
    } catch (RuntimeException e) {
      log.warn(
          "Replica '{}' could not renew its account ownership; other replicas treat its accounts as"
              + " gone after spinagent.ha.owner-timeout ({}): {}",
          replicaId,
          properties.getOwnerTimeout(),
          e.toString());
    }
  }
}
