package io.spinagent.plugin.grpc.session;

import io.grpc.Status;
import io.spinagent.plugin.accounts.AccountMember;
import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.accounts.AgentLink;
import io.spinagent.plugin.accounts.AgentWelcomeListener;
import io.spinagent.plugin.accounts.BindingUnavailableException;
import io.spinagent.plugin.cache.ResumePoints;
import io.spinagent.protocol.v1.AccountDecision;
import io.spinagent.protocol.v1.AccountInfo;
import io.spinagent.protocol.v1.ResumePoint;
import io.spinagent.protocol.v1.Role;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The accounts one session serves: its agent's claims, decided by the accounts layer (first the
 * refusals of the {@link AgentWelcomeListener}, then the {@link AccountRegistry}), the accepted
 * ones remembered, and each decision that makes the agent stream an account given the account's
 * resume points (protocol version 2).
 */
final class AccountClaims {

  // The session's own log: an operator follows one agent's session under one name.
  private static final Logger log = LoggerFactory.getLogger(AgentSession.class);

  private final AccountMember member;
  private final AgentLink agent;
  private final AccountRegistry registry;
  private final AgentWelcomeListener welcomeListener;
  private final ResumePoints resumePoints;

  // Guarded by this.
  private final Set<String> accepted = new LinkedHashSet<>();

  /**
   * The claims the registry refused (say, a name another cluster held), by account, until granted
   * or withdrawn: claimed again when the name comes free. A claim of a switched-off account is not
   * among them: the registry keeps it, and sends its decision when the account is switched on.
   * Guarded by this.
   */
  private final Map<String, AccountInfo> refused = new LinkedHashMap<>();

  /**
   * The accounts the agent withdrew in this session: frames of theirs still on the way are late,
   * not wrong. Guarded by this.
   */
  private final Set<String> withdrawn = new LinkedHashSet<>();

  /**
   * @param member the session, as the registry knows it
   * @param agent the session, as the welcome listener knows it
   */
  AccountClaims(
      AccountMember member,
      AgentLink agent,
      AccountRegistry registry,
      AgentWelcomeListener welcomeListener,
      ResumePoints resumePoints) {
    this.member = member;
    this.agent = agent;
    this.registry = registry;
    this.welcomeListener = welcomeListener;
    this.resumePoints = resumePoints;
  }

  /**
   * Claims accounts, in the order given: first what the accounts layer refuses outright (a dynamic
   * account no stored account owns), then the registry's decision on the rest. An agent whose
   * claims cannot be decided now (the bindings cannot be read) is disconnected with UNAVAILABLE, so
   * that it reconnects and claims them again.
   *
   * @return a decision for each account, in the order claimed
   */
  List<AccountDecision> claim(List<AccountInfo> claimed) {
    if (claimed.isEmpty()) {
      return List.of();
    }
    Map<String, AccountDecision> refusedOutright = new HashMap<>();
    List<AccountInfo> toDecide = new ArrayList<>();
    for (AccountInfo account : claimed) {
      Optional<String> refusal = welcomeListener.refusal(agent, account);
      if (refusal.isPresent()) {
        refusedOutright.put(
            account.getName(),
            AccountDecision.newBuilder()
                .setAccount(account.getName())
                .setAccepted(false)
                .setReason(refusal.get())
                .build());
      } else {
        toDecide.add(account);
      }
    }
    List<AccountDecision> decided;
    try {
      decided = toDecide.isEmpty() ? List.of() : registry.claimAll(member, toDecide);
    } catch (BindingUnavailableException e) {
      throw new ProtocolViolation(
          Status.UNAVAILABLE.withDescription(
              e.getMessage() + "; reconnect to claim the accounts again"));
    }
    // Asked before taking this lock: the registry's lock is never taken inside it.
    List<Boolean> kept =
        decided.stream()
            .map(d -> !d.getAccepted() && registry.isMember(member, d.getAccount()))
            .toList();
    synchronized (this) {
      for (int i = 0; i < decided.size(); i++) {
        AccountDecision decision = decided.get(i);
        withdrawn.remove(decision.getAccount());
        if (decision.getAccepted()) {
          accepted.add(decision.getAccount());
          refused.remove(decision.getAccount());
        } else if (!kept.get(i)) {
          refused.put(decision.getAccount(), toDecide.get(i));
        }
      }
    }
    Iterator<AccountDecision> next = decided.iterator();
    List<AccountDecision> decisions = new ArrayList<>(claimed.size());
    for (AccountInfo account : claimed) {
      AccountDecision refusal = refusedOutright.get(account.getName());
      decisions.add(refusal != null ? refusal : next.next());
    }
    return decisions;
  }

  /**
   * Version 2: the decisions that make this agent stream an account carry the account's resume
   * points and no longer require a complete listing, and the kinds with a resume point count as in
   * sync. Version 1 decisions are returned as they are. The points of all accounts are read at
   * once; when they cannot be read, the agent lists every kind, as in version 1.
   */
  List<AccountDecision> resumable(List<AccountDecision> decisions, int protocolVersion) {
    if (protocolVersion < 2) {
      return decisions;
    }
    Set<String> streamed =
        decisions.stream()
            .filter(d -> d.getAccepted() && d.getRole() == Role.ROLE_CACHING)
            .map(AccountDecision::getAccount)
            .collect(Collectors.toCollection(LinkedHashSet::new));
    if (streamed.isEmpty()) {
      return decisions;
    }
    Map<String, List<ResumePoint>> points;
    try {
      points = resumePoints.of(streamed);
    } catch (RuntimeException e) {
      log.warn(
          "Agent '{}': reading the resume points of {} failed, so it lists every kind: {}",
          agent.agentId(),
          streamed,
          e.toString());
      return decisions;
    }
    List<AccountDecision> result = new ArrayList<>(decisions.size());
    for (AccountDecision decision : decisions) {
      if (!streamed.contains(decision.getAccount())) {
        result.add(decision);
        continue;
      }
      List<ResumePoint> resume = points.getOrDefault(decision.getAccount(), List.of());
      result.add(decision.toBuilder().setResyncRequired(false).addAllResumePoints(resume).build());
      if (!resume.isEmpty()) {
        registry.kindsInSync(
            member, decision.getAccount(), resume.stream().map(ResumePoint::getKind).toList());
      }
    }
    return result;
  }

  /**
   * Whether the agent streams {@code account} now, so that its objects in a {@code frame} are
   * stored: it was given the account and caches it. A frame for an account it was given but no
   * longer caches (the account is being removed, switched off or handed to another agent, and the
   * agent has not heard of it yet) is late, not wrong: false, and the caller drops it. The agent
   * drops what it holds of such an account too, so nothing is acknowledged.
   *
   * <p>An account the agent withdrew in this session is late too: an agent sends its withdrawal as
   * soon as it decides, while changes it took before may still be on their way out behind it. A
   * refused claim is not: the agent was told not to stream it.
   *
   * @throws ProtocolViolation naming the frame and the account, for an account the agent was not
   *     given in this session
   */
  boolean streams(String account, String frame) {
    if (account.isEmpty()) {
      throw ProtocolViolation.invalid(frame + ": account is required");
    }
    if (!serves(account)) {
      if (withdrew(account)) {
        return false;
      }
      throw ProtocolViolation.precondition(
          frame
              + " for account '"
              + account
              + "', which this agent did not register or was refused"
              + " (registered: "
              + names()
              + ")");
    }
    return registry.isCaching(member, account);
  }

  /** Whether the session was given {@code account} (and its agent has not withdrawn it). */
  synchronized boolean serves(String account) {
    return accepted.contains(account);
  }

  private synchronized boolean withdrew(String account) {
    return withdrawn.contains(account);
  }

  /**
   * The registry decided again on an account the agent claimed (switched on, or a standby made the
   * caching member): one granted now is served by the session, whatever its claim was told.
   */
  synchronized void redecided(AccountDecision decision) {
    if (decision.getAccepted()) {
      accepted.add(decision.getAccount());
      refused.remove(decision.getAccount());
      withdrawn.remove(decision.getAccount());
    }
  }

  /** The accounts the session was given, in the order given. */
  synchronized List<String> names() {
    return List.copyOf(accepted);
  }

  /** The agent withdrew {@code account}: the session no longer serves it. */
  synchronized void forget(String account) {
    accepted.remove(account);
    refused.remove(account);
    withdrawn.add(account);
  }

  /**
   * Claims {@code account} again for an agent whose claim was refused, now that its name may have
   * come free (the account holding it was removed).
   *
   * @return the decision, when the claim is granted now
   */
  Optional<AccountDecision> claimAgain(String account) {
    AccountInfo claim;
    synchronized (this) {
      claim = refused.get(account);
    }
    if (claim == null) {
      return Optional.empty();
    }
    AccountDecision decision;
    try {
      decision = registry.claimAll(member, List.of(claim)).get(0);
    } catch (BindingUnavailableException e) {
      log.warn(
          "Agent '{}': cannot claim account '{}' again now ({}); it claims it when it reconnects",
          agent.agentId(),
          account,
          e.getMessage());
      return Optional.empty();
    }
    if (!decision.getAccepted()) {
      return Optional.empty();
    }
    synchronized (this) {
      refused.remove(account);
      accepted.add(account);
    }
    return Optional.of(decision);
  }
}
