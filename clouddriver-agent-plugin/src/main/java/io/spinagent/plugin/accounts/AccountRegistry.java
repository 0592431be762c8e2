package io.spinagent.plugin.accounts;

import io.spinagent.protocol.v1.AccountDecision;
import io.spinagent.protocol.v1.AccountInfo;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.Role;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which agents serve which accounts, and in what state each account is.
 *
 * <p>An account name belongs to one cluster: the first agent to claim it fixes its cluster
 * identity, and a claim from another cluster is refused while the account exists. Several agents of
 * the same cluster may serve an account; exactly one streams its objects (the caching member), the
 * others stand by and the oldest of them takes over when the caching member leaves. An account
 * nobody serves is orphaned, and removed once the grace period passes without an agent returning.
 *
 * <p>Notifications to members and listeners are made after the registry's lock is released, so a
 * listener or member may call back into the registry.
 *
 * <p>Longer than the project's classes usually are, on purpose: this is the one state machine of an
 * account's life (claim, standby and takeover, orphaning and expiry, switching off and on,
 * deletion, restore), and its transitions share one lock and one notification rule. Split, each
 * invariant would span classes.
 */
public final class AccountRegistry {

  private static final Logger log = LoggerFactory.getLogger(AccountRegistry.class);

  private final Clock clock;
  private final Duration gracePeriod;
  private final Predicate<String> servedElsewhere;
  private final List<AccountLifecycleListener> listeners = new CopyOnWriteArrayList<>();
  private final Map<String, Entry> accounts = new LinkedHashMap<>();

  /** Names an operator switched off; they outlive the entries, which come and go with agents. */
  private final Set<String> inactive = new HashSet<>();

  /**
   * Highest committed sequence per agent and account, for {@link
   * AccountDecision#getCommittedSequence()}.
   */
  private final Map<String, Long> committed = new HashMap<>();

  /** The registry of a replica that works alone: no account is ever served elsewhere. */
  public AccountRegistry(Clock clock, Duration gracePeriod) {
    this(clock, gracePeriod, name -> false);
  }

  /**
   * @param servedElsewhere says whether another replica serves an account now; such an account is
   *     only forgotten here when its grace period ends, never removed from Clouddriver. It may read
   *     the database: it is asked outside the registry's lock.
   */
  public AccountRegistry(Clock clock, Duration gracePeriod, Predicate<String> servedElsewhere) {
    this.clock = clock;
    this.gracePeriod = gracePeriod;
    this.servedElsewhere = servedElsewhere;
  }

  /**
   * Tells {@code listener} of every state change from now on; listeners hear of a change in the
   * order they were added. They are added at start-up, before the agent port opens.
   */
  public void addListener(AccountLifecycleListener listener) {
    listeners.add(listener);
  }

  /** Decides one account of a connecting agent. */
  public AccountDecision claim(AccountMember member, AccountInfo info) {
    List<Runnable> notifications = new ArrayList<>();
    AccountDecision decision;
    synchronized (this) {
      decision = claimLocked(member, info, notifications);
    }
    notifications.forEach(Runnable::run);
    return decision;
  }

  /** The member no longer serves {@code account} (its agent withdrew it). */
  public void withdraw(AccountMember member, String account) {
    List<Runnable> notifications = new ArrayList<>();
    synchronized (this) {
      Entry entry = accounts.get(account);
      if (entry != null) {
        leave(entry, member, notifications);
      }
    }
    notifications.forEach(Runnable::run);
  }

  /** The member's connection ended: every account it served loses it. */
  public void release(AccountMember member) {
    List<Runnable> notifications = new ArrayList<>();
    synchronized (this) {
      for (Entry entry : accounts.values()) {
        leave(entry, member, notifications);
      }
    }
    notifications.forEach(Runnable::run);
  }

  /**
   * These kinds of the account are in sync: a complete listing of each was committed, or the
   * caching member resumes them from what the plugin holds (protocol version 2). The account is
   * ACTIVE once every kind its caching member reported is in sync.
   */
  public void kindsInSync(AccountMember member, String account, Collection<Kind> kinds) {
    List<Runnable> notifications = new ArrayList<>();
    synchronized (this) {
      Entry entry = accounts.get(account);
      if (entry == null || entry.caching != member) {
        return;
      }
      kinds.forEach(kind -> entry.kindsAwaitingResync.remove(kindKey(kind)));
      if (entry.state == AccountState.ACTIVATING && entry.kindsAwaitingResync.isEmpty()) {
        transition(entry, AccountState.ACTIVE, notifications);
      }
    }
    notifications.forEach(Runnable::run);
  }

  public synchronized void recordCommitted(AccountMember member, String account, long sequence) {
    committed.merge(committedKey(member.agentId(), account), sequence, Math::max);
  }

  public synchronized void recordError(String account, String error) {
    Entry entry = accounts.get(account);
    if (entry != null) {
      entry.lastError = error;
    }
  }

  /** Removes the accounts orphaned for longer than the grace period; returns their names. */
  public List<String> expireOrphans() {
    List<Runnable> notifications = new ArrayList<>();
    List<String> expired = new ArrayList<>();
    Instant deadline = clock.instant().minus(gracePeriod);
    List<String> due;
    synchronized (this) {
      due =
          accounts.values().stream()
              .filter(e -> e.state == AccountState.ORPHANED && !e.stateSince.isAfter(deadline))
              .map(e -> e.name)
              .toList();
    }
    // Asked outside the lock: it may read the database.
    Set<String> elsewhere = new HashSet<>();
    for (String name : due) {
      if (servedElsewhere.test(name)) {
        elsewhere.add(name);
      }
    }
    synchronized (this) {
      for (var it = accounts.values().iterator(); it.hasNext(); ) {
        Entry entry = it.next();
        if (entry.state == AccountState.ORPHANED && elsewhere.contains(entry.name)) {
          log.info(
              "Account '{}' is served by another Clouddriver replica now; this one forgets it",
              entry.name);
          it.remove();
        } else if (entry.state == AccountState.ORPHANED && !entry.stateSince.isAfter(deadline)) {
          transition(entry, AccountState.REMOVED, notifications);
          it.remove();
          committed.keySet().removeIf(key -> key.endsWith("\u0000" + entry.name));
          expired.add(entry.name);
        }
      }
    }
    notifications.forEach(Runnable::run);
    return expired;
  }

  /**
   * Switches an account off: its members are told it is refused (they stop streaming it), and
   * listeners remove it from Clouddriver. Members stay known, so {@link #activate} needs no
   * reconnect.
   */
  public void deactivate(String name) {
    List<Runnable> notifications = new ArrayList<>();
    synchronized (this) {
      if (!inactive.add(name)) {
        return;
      }
      Entry entry = accounts.get(name);
      if (entry != null) {
        entry.caching = null;
        entry.kindsAwaitingResync = new HashSet<>();
        transition(entry, AccountState.INACTIVE, notifications);
        refuseMembers(entry, inactiveReason(name), notifications);
      }
    }
    log.info("Account '{}' switched off (INACTIVE)", name);
    notifications.forEach(Runnable::run);
  }

  /** Switches an account on again; a member that still serves it starts streaming it. */
  public void activate(String name) {
    List<Runnable> notifications = new ArrayList<>();
    synchronized (this) {
      if (!inactive.remove(name)) {
        return;
      }
      Entry entry = accounts.get(name);
      if (entry != null) {
        if (entry.members.isEmpty()) {
          transition(entry, AccountState.ORPHANED, notifications);
        } else {
          promoteOldest(entry, notifications);
          for (AccountMember standby : entry.members.keySet()) {
            if (standby != entry.caching) {
              AccountDecision decision =
                  AccountDecision.newBuilder()
                      .setAccount(name)
                      .setAccepted(true)
                      .setRole(Role.ROLE_STANDBY)
                      .build();
              notifications.add(() -> standby.decisionChanged(decision));
            }
          }
        }
      }
    }
    log.info("Account '{}' switched on", name);
    notifications.forEach(Runnable::run);
  }

  public synchronized boolean isInactive(String name) {
    return inactive.contains(name);
  }

  /** Names switched off, e.g. to persist them. */
  public synchronized Set<String> inactiveNames() {
    return Set.copyOf(inactive);
  }

  /**
   * Deletes an account now: its members are told it is gone, listeners remove its definition and
   * cache rows ({@link AccountState#DELETING}, then {@link AccountState#REMOVED}).
   *
   * @return whether the registry knew it
   */
  public boolean delete(String name, String reason) {
    List<Runnable> notifications = new ArrayList<>();
    boolean known;
    synchronized (this) {
      inactive.remove(name);
      Entry entry = accounts.remove(name);
      known = entry != null;
      if (known) {
        entry.caching = null;
        transition(entry, AccountState.DELETING, notifications);
        refuseMembers(entry, reason, notifications);
        entry.members.clear();
        transition(entry, AccountState.REMOVED, notifications);
        committed.keySet().removeIf(key -> key.endsWith("\u0000" + name));
      }
    }
    notifications.forEach(Runnable::run);
    return known;
  }

  /** Clouddriver's definition of a served account cannot be written: the account is FAILED. */
  public void markFailed(String name, String error) {
    List<Runnable> notifications = new ArrayList<>();
    synchronized (this) {
      Entry entry = accounts.get(name);
      if (entry == null || !entry.state.isServed()) {
        return;
      }
      entry.lastError = error;
      transition(entry, AccountState.FAILED, notifications);
    }
    notifications.forEach(Runnable::run);
  }

  /** Clouddriver's definition of a FAILED account was written after all. */
  public void markRecovered(String name) {
    List<Runnable> notifications = new ArrayList<>();
    synchronized (this) {
      Entry entry = accounts.get(name);
      if (entry == null || entry.state != AccountState.FAILED) {
        return;
      }
      transition(
          entry,
          entry.kindsAwaitingResync.isEmpty() ? AccountState.ACTIVE : AccountState.ACTIVATING,
          notifications);
    }
    notifications.forEach(Runnable::run);
  }

  /**
   * What a restarted replica knew: switched-off names, and accounts that were served here, which
   * wait as ORPHANED for their agents (and are removed after the grace period if none returns).
   */
  public void restore(Set<String> inactiveNames, List<AgentAccount> previouslyServed) {
    synchronized (this) {
      inactive.addAll(inactiveNames);
      for (AgentAccount account : previouslyServed) {
        if (accounts.containsKey(account.name()) || inactive.contains(account.name())) {
          continue;
        }
        Entry entry = new Entry(account.name(), account.cluster(), account.stateSince());
        entry.state = AccountState.ORPHANED;
        entry.lastError = account.lastError();
        accounts.put(account.name(), entry);
      }
    }
  }

  public synchronized Optional<AgentAccount> find(String name) {
    return Optional.ofNullable(accounts.get(name)).map(Entry::snapshot);
  }

  public synchronized List<AgentAccount> all() {
    return accounts.values().stream().map(Entry::snapshot).toList();
  }

  /** Whether {@code member} streams {@code account}: only then may it send its objects. */
  public synchronized boolean isCaching(AccountMember member, String account) {
    Entry entry = accounts.get(account);
    return entry != null && entry.caching == member;
  }

  private AccountDecision claimLocked(
      AccountMember member, AccountInfo info, List<Runnable> notifications) {
    String name = info.getName();
    ClusterIdentity identity =
        new ClusterIdentity(
            info.getCluster().getApiServerHost(),
            info.getCluster().getCaFingerprintSha256(),
            info.getCluster().getKubernetesVersion());
    AccountDecision.Builder decision = AccountDecision.newBuilder().setAccount(name);
    Entry entry = accounts.get(name);
    if (entry != null && !entry.cluster.sameClusterAs(identity)) {
      String reason =
          "account name '"
              + name
              + "' belongs to another cluster ("
              + entry.cluster
              + "); this agent reports "
              + identity
              + ". Account names must be unique across clusters.";
      log.warn("Refused account '{}' from agent '{}': {}", name, member.agentId(), reason);
      return decision.setAccepted(false).setReason(reason).build();
    }
    if (entry == null) {
      entry = new Entry(name, identity, clock.instant());
      accounts.put(name, entry);
    }
    entry.cluster = identity;
    entry.reported = info;
    Set<String> kinds = new HashSet<>();
    info.getKindsList().forEach(kind -> kinds.add(kindKey(kind)));
    entry.members.remove(member);
    entry.members.put(member, Set.copyOf(kinds));
    if (inactive.contains(name)) {
      // Remembered as a member, so switching the account on again needs no reconnect.
      transition(entry, AccountState.INACTIVE, notifications);
      log.info(
          "Account '{}' from agent '{}' is INACTIVE: not served until an operator activates it",
          name,
          member.agentId());
      return decision.setAccepted(false).setReason(inactiveReason(name)).build();
    }
    if (entry.caching == null) {
      entry.caching = member;
      entry.kindsAwaitingResync = kinds;
      transition(
          entry,
          entry.kindsAwaitingResync.isEmpty() ? AccountState.ACTIVE : AccountState.ACTIVATING,
          notifications);
      // Whatever the plugin holds may be stale: reconcile with a complete listing.
      decision.setRole(Role.ROLE_CACHING).setResyncRequired(true);
    } else {
      decision.setRole(Role.ROLE_STANDBY);
    }
    Long done = committed.get(committedKey(member.agentId(), name));
    if (done != null) {
      decision.setCommittedSequence(done);
    }
    log.info(
        "Account '{}' served by agent '{}' as {} ({})",
        name,
        member.agentId(),
        decision.getRole() == Role.ROLE_CACHING ? "caching member" : "standby",
        identity);
    return decision.setAccepted(true).build();
  }

  private void leave(Entry entry, AccountMember member, List<Runnable> notifications) {
    if (entry.members.remove(member) == null) {
      return;
    }
    if (entry.caching != member) {
      return;
    }
    entry.caching = null;
    if (!entry.members.isEmpty()) {
      // The longest-serving standby takes over; its listing replaces the leaver's picture.
      AccountMember successor = promoteOldest(entry, notifications);
      log.info(
          "Account '{}': agent '{}' left, standby agent '{}' takes over streaming",
          entry.name,
          member.agentId(),
          successor.agentId());
    } else {
      log.warn(
          "Account '{}' is orphaned: its last agent '{}' is gone; it is removed in {} unless an"
              + " agent returns",
          entry.name,
          member.agentId(),
          gracePeriod);
      transition(entry, AccountState.ORPHANED, notifications);
    }
  }

  /** Makes the longest-serving member the caching one and tells it to list everything. */
  private AccountMember promoteOldest(Entry entry, List<Runnable> notifications) {
    AccountMember successor = entry.members.keySet().iterator().next();
    entry.caching = successor;
    entry.kindsAwaitingResync = new HashSet<>(entry.members.get(successor));
    transition(
        entry,
        entry.kindsAwaitingResync.isEmpty() ? AccountState.ACTIVE : AccountState.ACTIVATING,
        notifications);
    AccountDecision promoted =
        AccountDecision.newBuilder()
            .setAccount(entry.name)
            .setAccepted(true)
            .setRole(Role.ROLE_CACHING)
            .setResyncRequired(true)
            .setCommittedSequence(
                committed.getOrDefault(committedKey(successor.agentId(), entry.name), 0L))
            .build();
    notifications.add(() -> successor.decisionChanged(promoted));
    return successor;
  }

  private void transition(Entry entry, AccountState next, List<Runnable> notifications) {
    AccountState previous = entry.state;
    if (previous == next) {
      return;
    }
    entry.state = next;
    entry.stateSince = clock.instant();
    if (next == AccountState.ACTIVE) {
      entry.lastError = null;
    }
    AgentAccount snapshot = entry.snapshot();
    for (AccountLifecycleListener listener : listeners) {
      notifications.add(() -> notify(listener, snapshot, previous));
    }
  }

  private static void notify(
      AccountLifecycleListener listener, AgentAccount account, AccountState previous) {
    try {
      listener.onStateChange(account, previous);
    } catch (RuntimeException e) {
      log.error(
          "Account listener {} failed for account '{}' ({} -> {})",
          listener.getClass().getSimpleName(),
          account.name(),
          previous,
          account.state(),
          e);
    }
  }

  private static void refuseMembers(Entry entry, String reason, List<Runnable> notifications) {
    AccountDecision refused =
        AccountDecision.newBuilder()
            .setAccount(entry.name)
            .setAccepted(false)
            .setReason(reason)
            .build();
    for (AccountMember member : entry.members.keySet()) {
      notifications.add(() -> member.decisionChanged(refused));
    }
  }

  private static String inactiveReason(String name) {
    return "account '"
        + name
        + "' is INACTIVE: an operator switched it off"
        + " (PUT /spinagent/accounts/"
        + name
        + " with state ACTIVE switches it on)";
  }

  private static String kindKey(Kind kind) {
    return kind.getGroup() + "/" + kind.getKind();
  }

  private static String committedKey(String agentId, String account) {
    return agentId + "\u0000" + account;
  }

  private static final class Entry {
    final String name;
    ClusterIdentity cluster;
    AccountState state;
    Instant stateSince;

    /** Serving members, oldest first, with the kinds each reported. */
    final Map<AccountMember, Set<String>> members = new LinkedHashMap<>();

    AccountMember caching;
    Set<String> kindsAwaitingResync = new HashSet<>();
    String lastError;

    /** What the latest claiming agent said about the account; null when restored from the table. */
    AccountInfo reported;

    Entry(String name, ClusterIdentity cluster, Instant now) {
      this.name = name;
      this.cluster = cluster;
      this.stateSince = now;
    }

    AgentAccount snapshot() {
      return new AgentAccount(
          name,
          cluster,
          state,
          stateSince,
          caching == null ? null : caching.agentId(),
          members.keySet().stream().filter(m -> m != caching).map(AccountMember::agentId).toList(),
          lastError,
          reported);
    }
  }
}
