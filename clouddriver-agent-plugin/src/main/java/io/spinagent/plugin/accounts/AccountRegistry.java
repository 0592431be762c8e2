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
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which agents serve which accounts, and in what state each account is.
 *
 * <p>An account name belongs to one cluster: the first agent to claim it fixes its cluster
 * identity, and a claim from another cluster is refused while the account exists. It is also bound
 * to that agent's principal (its certificate subject or token identity, {@link
 * AccountMember#principal()}): a claim from another principal is refused unless the {@link
 * BindingPolicy} allows it, since a cluster identity is no secret. Bindings are kept in {@link
 * AccountBindings}, which other replicas share, and outlive the account's removal after the grace
 * period; deleting the account ends its binding. {@link PrincipalBindings} answers who may serve an
 * account; the registry asks it outside its lock and decides under it. Several agents of the same
 * cluster may serve an account; exactly one streams its objects (the caching member), the others
 * stand by and the oldest of them takes over when the caching member leaves. An account nobody
 * serves is orphaned, and removed once the grace period passes without an agent returning.
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
  private final Function<Collection<String>, Set<String>> servedElsewhere;
  private final PrincipalBindings principals;
  private final SwitchedOffRecord switchedOffRecord;
  private final Map<RefusedClaim, LongAdder> refusedClaims = new EnumMap<>(RefusedClaim.class);
  private final List<AccountLifecycleListener> listeners = new CopyOnWriteArrayList<>();
  private final Map<String, Entry> accounts = new LinkedHashMap<>();

  /** Names an operator switched off; they outlive the entries, which come and go with agents. */
  private final Set<String> inactive = new HashSet<>();

  // Switches made here (off, on, deleted), numbered: a switch read from the shared record before
  // one of them was made is older than this replica's memory, and is not followed.
  private long localSwitches;
  private final Map<String, Long> localSwitchOf = new HashMap<>();

  /**
   * Highest committed sequence per agent and account, for {@link
   * AccountDecision#getCommittedSequence()}.
   */
  private final Map<CommittedKey, Long> committed = new HashMap<>();

  /**
   * The registry of a replica that works alone: no account is ever served elsewhere, and accounts
   * are bound to principals in memory, with the default {@link BindingPolicy}.
   */
  public AccountRegistry(Clock clock, Duration gracePeriod) {
    this(
        clock,
        gracePeriod,
        names -> Set.of(),
        AccountBindings.inMemory(),
        BindingPolicy.DEFAULT,
        SwitchedOffRecord.NONE);
  }

  /**
   * @param servedElsewhere of the accounts named, those another replica serves now; such an
   *     account, if orphaned here, is forgotten here at the next sweep, never removed from
   *     Clouddriver. It may read the database (once per sweep, for all orphans): it is asked
   *     outside the registry's lock.
   * @param bindings where accounts' principals are bound; asked outside the registry's lock
   * @param switchedOffRecord which accounts are switched off, as every replica records it; asked
   *     outside the registry's lock
   */
  public AccountRegistry(
      Clock clock,
      Duration gracePeriod,
      Function<Collection<String>, Set<String>> servedElsewhere,
      AccountBindings bindings,
      BindingPolicy binding,
      SwitchedOffRecord switchedOffRecord) {
    this.clock = clock;
    this.gracePeriod = gracePeriod;
    this.servedElsewhere = servedElsewhere;
    this.principals = new PrincipalBindings(bindings, binding);
    this.switchedOffRecord = switchedOffRecord;
    for (RefusedClaim reason : RefusedClaim.values()) {
      refusedClaims.put(reason, new LongAdder());
    }
  }

  /**
   * Tells {@code listener} of every state change from now on; listeners hear of a change in the
   * order they were added. They are added at start-up, before the agent port opens.
   */
  public void addListener(AccountLifecycleListener listener) {
    listeners.add(listener);
  }

  /**
   * Decides one account of a connecting agent.
   *
   * @throws BindingUnavailableException when the account's binding cannot be read or recorded
   */
  public AccountDecision claim(AccountMember member, AccountInfo info) {
    return claimAll(member, List.of(info)).get(0);
  }

  /**
   * Decides accounts of a connecting agent, in order. The principals they are bound to are looked
   * up first, for all of them at once, and outside the lock: that may read and write the database.
   *
   * @throws BindingUnavailableException when the bindings cannot be read or recorded; then nothing
   *     was decided
   */
  public List<AccountDecision> claimAll(AccountMember member, List<AccountInfo> infos) {
    Map<String, String> bound = boundPrincipals(member, infos);
    long switchesSeen;
    synchronized (this) {
      switchesSeen = localSwitches;
    }
    Map<String, Boolean> switches = recordedSwitches(infos);
    return updateAndGet(
        notifications -> {
          switches.forEach((name, off) -> followRecordedSwitch(name, off, switchesSeen));
          return infos.stream()
              .map(info -> claimLocked(member, info, bound.get(info.getName()), notifications))
              .toList();
        });
  }

  /**
   * Whether the claimed accounts are switched off, as recorded for every replica: another replica
   * may have switched one off or on while its agent was connected there.
   */
  private Map<String, Boolean> recordedSwitches(List<AccountInfo> infos) {
    try {
      return switchedOffRecord.switchedOff(infos.stream().map(AccountInfo::getName).toList());
    } catch (RuntimeException e) {
      throw new BindingUnavailableException(
          "cannot read which of the claimed accounts are switched off: " + e.getMessage(), e);
    }
  }

  /**
   * Takes the recorded switch of an account this replica does not serve; one it serves was switched
   * here (commands go to the replica holding the account's agents), so memory is right. So is it
   * for one switched here since the record was read ({@code switchesSeen}).
   */
  private void followRecordedSwitch(String name, boolean switchedOff, long switchesSeen) {
    Entry entry = accounts.get(name);
    if ((entry != null && !entry.members.isEmpty())
        || localSwitchOf.getOrDefault(name, 0L) > switchesSeen) {
      return;
    }
    if (switchedOff) {
      inactive.add(name);
    } else {
      inactive.remove(name);
    }
  }

  /** Claims refused since this replica started, for this reason. */
  public long refusedClaims(RefusedClaim reason) {
    return refusedClaims.get(reason).sum();
  }

  /** The member no longer serves {@code account} (its agent withdrew it). */
  public void withdraw(AccountMember member, String account) {
    update(
        notifications -> {
          Entry entry = accounts.get(account);
          if (entry != null) {
            leave(entry, member, notifications);
          }
        });
  }

  /** The member's connection ended: every account it served loses it. */
  public void release(AccountMember member) {
    update(
        notifications -> {
          for (Entry entry : accounts.values()) {
            leave(entry, member, notifications);
          }
        });
  }

  /**
   * These kinds of the account are in sync: a complete listing of each was committed, or the
   * caching member resumes them from what the plugin holds (protocol version 2). The account is
   * ACTIVE once every kind its caching member reported is in sync.
   */
  public void kindsInSync(AccountMember member, String account, Collection<Kind> kinds) {
    update(
        notifications -> {
          Entry entry = accounts.get(account);
          if (entry == null || entry.caching != member) {
            return;
          }
          kinds.forEach(kind -> entry.kindsAwaitingResync.remove(kindKey(kind)));
          if (entry.state == AccountState.ACTIVATING && entry.kindsAwaitingResync.isEmpty()) {
            transition(entry, AccountState.ACTIVE, notifications);
          }
        });
  }

  public synchronized void recordCommitted(AccountMember member, String account, long sequence) {
    committed.merge(new CommittedKey(member.agentId(), account), sequence, Math::max);
  }

  public synchronized void recordError(String account, String error) {
    Entry entry = accounts.get(account);
    if (entry != null) {
      entry.lastError = error;
    }
  }

  /**
   * Forgets the orphaned accounts another replica serves now (their agents moved there: this
   * replica's view of them would otherwise say ORPHANED until the grace period ends), and removes
   * those orphaned for longer than the grace period; returns the names of the removed ones.
   */
  public List<String> expireOrphans() {
    Instant deadline = clock.instant().minus(gracePeriod);
    List<String> orphans;
    synchronized (this) {
      orphans =
          accounts.values().stream()
              .filter(e -> e.state == AccountState.ORPHANED)
              .map(e -> e.name)
              .toList();
    }
    // Asked outside the lock: it may read the database.
    Set<String> elsewhere = orphans.isEmpty() ? Set.of() : servedElsewhere.apply(orphans);
    return updateAndGet(
        notifications -> {
          List<String> expired = new ArrayList<>();
          for (var it = accounts.values().iterator(); it.hasNext(); ) {
            Entry entry = it.next();
            if (entry.state == AccountState.ORPHANED && elsewhere.contains(entry.name)) {
              log.info(
                  "Account '{}' is served by another Clouddriver replica now; this one forgets it",
                  entry.name);
              it.remove();
            } else if (entry.state == AccountState.ORPHANED
                && !entry.stateSince.isAfter(deadline)) {
              transition(entry, AccountState.REMOVED, notifications);
              it.remove();
              committed.keySet().removeIf(key -> key.account().equals(entry.name));
              expired.add(entry.name);
            }
          }
          return expired;
        });
  }

  /**
   * Switches an account off: its members are told it is refused (they stop streaming it), and
   * listeners remove it from Clouddriver. Members stay known, so {@link #activate} needs no
   * reconnect.
   */
  public void deactivate(String name) {
    update(
        notifications -> {
          if (!inactive.add(name)) {
            return;
          }
          localSwitchOf.put(name, ++localSwitches);
          log.info("Account '{}' switched off (INACTIVE)", name);
          Entry entry = accounts.get(name);
          if (entry != null) {
            entry.caching = null;
            entry.kindsAwaitingResync = new HashSet<>();
            transition(entry, AccountState.INACTIVE, notifications);
            refuseMembers(entry, inactiveReason(name), notifications);
          }
        });
  }

  /** Switches an account on again; a member that still serves it starts streaming it. */
  public void activate(String name) {
    update(notifications -> activateLocked(name, notifications));
  }

  /**
   * Switches on the accounts this replica holds switched off, with agents waiting as members, that
   * the shared record says are on: an operator switched them on through another replica (the one
   * their agent had just left), which had no member to tell. One switched here since the record was
   * read is left as it is. Called after every orphan sweep.
   */
  public void followSwitchesOn() {
    List<String> held;
    long switchesSeen;
    synchronized (this) {
      held =
          accounts.values().stream()
              .filter(e -> e.state == AccountState.INACTIVE && !e.members.isEmpty())
              .map(e -> e.name)
              .toList();
      switchesSeen = localSwitches;
    }
    if (held.isEmpty()) {
      return;
    }
    Map<String, Boolean> recorded = switchedOffRecord.switchedOff(held);
    update(
        notifications -> {
          for (String name : held) {
            if (Boolean.FALSE.equals(recorded.get(name))
                && localSwitchOf.getOrDefault(name, 0L) <= switchesSeen) {
              log.info("Account '{}' was switched on through another Clouddriver replica", name);
              activateLocked(name, notifications);
            }
          }
        });
  }

  private void activateLocked(String name, List<Runnable> notifications) {
    if (!inactive.remove(name)) {
      return;
    }
    localSwitchOf.put(name, ++localSwitches);
    log.info("Account '{}' switched on", name);
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

  public synchronized boolean isInactive(String name) {
    return inactive.contains(name);
  }

  /** Names switched off, e.g. to persist them. */
  public synchronized Set<String> inactiveNames() {
    return Set.copyOf(inactive);
  }

  /**
   * Deletes an account now: its members are told it is gone, listeners remove its definition and
   * cache rows ({@link AccountState#DELETING}, then {@link AccountState#REMOVED}), and its binding
   * ends, whether or not this replica knew it: the next agent to claim the name binds it.
   *
   * @return whether the registry knew it
   */
  public boolean delete(String name, String reason) {
    boolean known =
        updateAndGet(
            notifications -> {
              if (inactive.remove(name)) {
                localSwitchOf.put(name, ++localSwitches);
              }
              return remove(name, reason, notifications);
            });
    principals.unbind(name);
    return known;
  }

  /**
   * Deletes an account that another replica deleted while a session here served it (its agent moved
   * here as the delete ran there), as {@link #delete} would, but only if its state is still the one
   * it entered at {@code seenSince}: an account created again since is kept. The replica that
   * deleted it ended its binding.
   *
   * @return whether it was deleted here
   */
  public boolean deletedElsewhere(String name, Instant seenSince, String reason) {
    return updateAndGet(
        notifications -> {
          Entry entry = accounts.get(name);
          if (entry == null || !entry.stateSince.equals(seenSince)) {
            return false;
          }
          inactive.remove(name);
          return remove(name, reason, notifications);
        });
  }

  private boolean remove(String name, String reason, List<Runnable> notifications) {
    Entry entry = accounts.remove(name);
    if (entry == null) {
      return false;
    }
    entry.caching = null;
    transition(entry, AccountState.DELETING, notifications);
    refuseMembers(entry, reason, notifications);
    entry.members.clear();
    transition(entry, AccountState.REMOVED, notifications);
    committed.keySet().removeIf(key -> key.account().equals(name));
    return true;
  }

  /** Clouddriver's definition of a served account cannot be written: the account is FAILED. */
  public void markFailed(String name, String error) {
    update(
        notifications -> {
          Entry entry = accounts.get(name);
          if (entry == null || !entry.state.isServed()) {
            return;
          }
          entry.lastError = error;
          transition(entry, AccountState.FAILED, notifications);
        });
  }

  /** Clouddriver's definition of a FAILED account was written after all. */
  public void markRecovered(String name) {
    update(
        notifications -> {
          Entry entry = accounts.get(name);
          if (entry == null || entry.state != AccountState.FAILED) {
            return;
          }
          transition(
              entry,
              entry.kindsAwaitingResync.isEmpty() ? AccountState.ACTIVE : AccountState.ACTIVATING,
              notifications);
        });
  }

  /**
   * What a restarted replica knew: switched-off names, and accounts that were served here, which
   * wait as ORPHANED for their agents (and are removed after the grace period if none returns),
   * still bound to their principals.
   *
   * @param boundPrincipals the principal each account is bound to; an account bound before bindings
   *     were recorded has none, and binds to the next agent that claims it
   */
  public void restore(
      Set<String> inactiveNames,
      List<AgentAccount> previouslyServed,
      Map<String, String> boundPrincipals) {
    synchronized (this) {
      inactive.addAll(inactiveNames);
      for (AgentAccount account : previouslyServed) {
        if (accounts.containsKey(account.name()) || inactive.contains(account.name())) {
          continue;
        }
        Entry entry = new Entry(account.name(), account.cluster(), account.stateSince());
        entry.state = AccountState.ORPHANED;
        entry.lastError = account.lastError();
        entry.principal = boundPrincipals.get(account.name());
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

  /**
   * Whether {@code member} is one of {@code account}'s members, streaming it or not: a claim of a
   * switched-off account is kept, and the member hears when the account is switched on.
   */
  public synchronized boolean isMember(AccountMember member, String account) {
    Entry entry = accounts.get(account);
    return entry != null && entry.members.containsKey(member);
  }

  /**
   * The principal each claimed account is bound to; an account nobody holds is bound to the
   * member's principal here. Known bindings come from memory; the others from {@link
   * AccountBindings}, for all of them in one call, outside the lock.
   */
  private Map<String, String> boundPrincipals(AccountMember member, List<AccountInfo> infos) {
    if (!principals.enabled()) {
      return Map.of();
    }
    Map<String, String> bound = new HashMap<>();
    Set<String> unknown = new LinkedHashSet<>();
    synchronized (this) {
      for (AccountInfo info : infos) {
        Entry entry = accounts.get(info.getName());
        if (entry != null && entry.principal != null) {
          bound.put(info.getName(), entry.principal);
        } else if (entry == null || entry.cluster.sameClusterAs(identityOf(info))) {
          // Not an account refused for its cluster anyway: binding it would hand it to the
          // refused agent.
          unknown.add(info.getName());
        }
      }
    }
    if (!unknown.isEmpty()) {
      bound.putAll(principals.bind(unknown, member.principal()));
    }
    return bound;
  }

  private AccountDecision claimLocked(
      AccountMember member, AccountInfo info, String boundPrincipal, List<Runnable> notifications) {
    String name = info.getName();
    ClusterIdentity identity = identityOf(info);
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
      refusedClaims.get(RefusedClaim.CLUSTER).increment();
      return decision.setAccepted(false).setReason(reason).build();
    }
    String principal = boundPrincipal != null || entry == null ? boundPrincipal : entry.principal;
    if (principals.enabled()) {
      String reason = principals.refusal(name, principal, member.principal());
      if (reason != null) {
        log.warn(
            "Refused account '{}' from agent '{}' (principal '{}'): {}",
            name,
            member.agentId(),
            member.principal(),
            reason);
        refusedClaims.get(RefusedClaim.PRINCIPAL).increment();
        return decision.setAccepted(false).setReason(reason).build();
      }
    }
    if (entry == null) {
      entry = new Entry(name, identity, clock.instant());
      accounts.put(name, entry);
    }
    if (entry.principal == null) {
      entry.principal = principal;
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
    Long done = committed.get(new CommittedKey(member.agentId(), name));
    if (done != null) {
      decision.setCommittedSequence(done);
    }
    log.info(
        "Account '{}' served by agent '{}' (principal '{}') as {} ({})",
        name,
        member.agentId(),
        member.principal(),
        decision.getRole() == Role.ROLE_CACHING ? "caching member" : "standby",
        identity);
    return decision.setAccepted(true).build();
  }

  private static ClusterIdentity identityOf(AccountInfo info) {
    return new ClusterIdentity(
        info.getCluster().getApiServerHost(),
        info.getCluster().getCaFingerprintSha256(),
        info.getCluster().getKubernetesVersion());
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
                committed.getOrDefault(new CommittedKey(successor.agentId(), entry.name), 0L))
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

  /** An agent's committed sequence of one account. */
  private record CommittedKey(String agentId, String account) {}

  /**
   * The one way the registry changes: {@code change} runs under the registry's lock and queues what
   * members and listeners must hear; they hear it after the lock is released, in order.
   */
  private <T> T updateAndGet(Function<List<Runnable>, T> change) {
    List<Runnable> notifications = new ArrayList<>();
    T result;
    synchronized (this) {
      result = change.apply(notifications);
    }
    notifications.forEach(Runnable::run);
    return result;
  }

  private void update(Consumer<List<Runnable>> change) {
    updateAndGet(
        notifications -> {
          change.accept(notifications);
          return null;
        });
  }

  /** Why a claim was refused, as counted in {@code spinagent.accounts.claims.refused}. */
  public enum RefusedClaim {
    /** The account name belongs to another cluster. */
    CLUSTER,
    /** The account is bound to another principal, and the operator allows no other. */
    PRINCIPAL
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

    /** The principal the account is bound to; null while binding is off or not known yet. */
    String principal;

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
