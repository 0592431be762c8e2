package io.spinagent.plugin.accounts;

import java.util.Collection;
import java.util.Map;

/**
 * Which principal may serve an account: the principal each account is bound to ({@link
 * AccountBindings}, which replicas share) and the principals the operator allows besides ({@link
 * BindingPolicy}). {@link AccountRegistry} asks it outside its lock, since the bindings may live in
 * the database, and decides with the answers under its lock.
 */
final class PrincipalBindings {

  private final AccountBindings bindings;
  private final BindingPolicy policy;

  PrincipalBindings(AccountBindings bindings, BindingPolicy policy) {
    this.bindings = bindings;
    this.policy = policy;
  }

  /** Whether accounts are bound at all ({@code spinagent.accounts.binding.enabled}). */
  boolean enabled() {
    return policy.enabled();
  }

  /**
   * The principal each of {@code accounts} is bound to, binding those nobody holds to {@code
   * principal}.
   *
   * @throws BindingUnavailableException naming the accounts when the bindings cannot be read or
   *     recorded
   */
  Map<String, String> bind(Collection<String> accounts, String principal) {
    try {
      return bindings.bind(accounts, principal);
    } catch (RuntimeException e) {
      throw new BindingUnavailableException(
          "cannot read or record the principals bound to accounts "
              + abbreviate(accounts)
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /** The account is deleted: the next agent to claim the name binds it. */
  void unbind(String account) {
    bindings.unbind(account);
  }

  /**
   * Why {@code claimer} may not serve {@code account}, bound to {@code holder}; null if it may.
   *
   * @param holder null when the account was removed between reading its binding and deciding
   */
  String refusal(String account, String holder, String claimer) {
    if (holder == null) {
      return "account '"
          + account
          + "' was removed while this agent claimed it: it is claimed again when the agent"
          + " reconnects";
    }
    if (holder.equals(claimer) || policy.alsoAllows(claimer, account)) {
      return null;
    }
    return "account '"
        + account
        + "' is bound to principal '"
        + holder
        + "', which registered it; this agent's principal is '"
        + claimer
        + "'. Serve it with the credentials of '"
        + holder
        + "', allow '"
        + claimer
        + "' for it in spinagent.accounts.binding.also-allowed, or delete the account"
        + " (DELETE /spinagent/accounts/"
        + account
        + ") so that the next agent to claim it binds it";
  }

  private static String abbreviate(Collection<String> names) {
    return names.size() <= 5
        ? names.toString()
        : names.stream().limit(5).toList() + " and " + (names.size() - 5) + " more";
  }
}
