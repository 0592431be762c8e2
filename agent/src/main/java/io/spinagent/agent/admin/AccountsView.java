package io.spinagent.agent.admin;

import io.spinagent.agent.cluster.AccountState;
import io.spinagent.agent.cluster.AccountStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The JSON of {@code /accounts} and {@code /watches}, with Armory Scale Agent's filters and paging
 * on {@code /accounts}: {@code Config.Name}, {@code Config.Dynamic}, {@code State.Name} (Armory's
 * state names or SpinAgent's), {@code limit} and {@code offset} (also Armory's spelling {@code
 * offtset}). Each account also carries {@code Config.Name}, {@code Config.Dynamic} and {@code
 * State.Name}, so the filters name fields of the answer.
 */
final class AccountsView {

  static final Set<String> ACCOUNT_PARAMETERS =
      orderedSet("Config.Name", "Config.Dynamic", "State.Name", "limit", "offset", "offtset");

  static final Set<String> WATCH_PARAMETERS = orderedSet("account");

  /** Enough for any fleet; more is surely a mistake. */
  static final int MAX_LIMIT = 100_000;

  /** Armory's state names, and the SpinAgent states each stands for. */
  private static final Map<String, Set<AccountState>> ARMORY_STATES =
      Map.of(
          "ConfigLoaded", EnumSet.of(AccountState.CONNECTING, AccountState.WAITING),
          "Healthy", EnumSet.of(AccountState.SYNCING, AccountState.READY, AccountState.STANDBY),
          "DiscoveryError", EnumSet.of(AccountState.FAILED),
          "Stopped", EnumSet.of(AccountState.STOPPED, AccountState.REFUSED));

  private AccountsView() {}

  /**
   * Armory's name for where an account stands: waiting for Clouddriver's decision is still {@code
   * ConfigLoaded}, a standby is as {@code Healthy} as the agent that streams, and an account
   * Clouddriver refused is {@code Stopped} ({@code Stopped} has no Armory equivalent).
   */
  static String armoryState(AccountState state) {
    return switch (state) {
      case CONNECTING, WAITING -> "ConfigLoaded";
      case SYNCING, READY, STANDBY -> "Healthy";
      case FAILED -> "DiscoveryError";
      case STOPPED, REFUSED -> "Stopped";
    };
  }

  static Map<String, Object> accounts(
      List<AccountStatus> all, String configError, QueryParameters query)
      throws QueryParameters.BadParameter {
    List<String> names = query.all("Config.Name");
    Optional<Boolean> dynamic = query.bool("Config.Dynamic");
    Set<AccountState> states = states(query.all("State.Name"));
    Optional<Integer> limit = query.integer("limit", 1, MAX_LIMIT);
    int offset = offset(query);

    List<AccountStatus> matching =
        all.stream()
            .filter(a -> names.isEmpty() || names.contains(a.name()))
            .filter(a -> dynamic.isEmpty() || a.dynamic() == dynamic.get())
            .filter(a -> states.isEmpty() || states.contains(a.state()))
            .sorted(Comparator.comparing(AccountStatus::name))
            .toList();
    List<Map<String, Object>> page =
        matching.stream()
            .skip(offset)
            .limit(limit.orElse(Integer.MAX_VALUE))
            .map(AccountsView::account)
            .toList();

    Map<String, Object> body = new LinkedHashMap<>();
    body.put("configError", configError);
    body.put("total", matching.size());
    body.put("offset", offset);
    body.put("limit", limit.orElse(null));
    body.put("accounts", page);
    return body;
  }

  static Map<String, Object> account(AccountStatus a) {
    Map<String, Object> account = new LinkedHashMap<>();
    account.put("name", a.name());
    account.put("state", a.state().name());
    account.put("error", a.error());
    account.put("apiServerHost", a.apiServerHost());
    account.put("kubernetesVersion", a.kubernetesVersion());
    account.put("objects", a.objects());
    account.put("attempts", a.attempts());
    account.put("dynamic", a.dynamic());
    account.put("watchedKinds", a.watchedKinds());
    account.put("unwatchableKinds", a.unwatchableKinds());
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("Name", a.name());
    config.put("Dynamic", a.dynamic());
    account.put("Config", config);
    account.put("State", Map.of("Name", armoryState(a.state())));
    return account;
  }

  /**
   * Watches grouped by account and watch state: {@code watching} (listed, and followed), {@code
   * syncing} (the account's first listing is not complete yet), {@code stopped} (the account is not
   * connected: nothing is watched now) and {@code notPermitted} (RBAC refuses them, with the
   * reason).
   */
  static Map<String, Object> watches(List<AccountStatus> all, QueryParameters query)
      throws QueryParameters.BadParameter {
    List<String> only = query.all("account");
    List<Map<String, Object>> accounts = new ArrayList<>();
    all.stream()
        .filter(a -> only.isEmpty() || only.contains(a.name()))
        .sorted(Comparator.comparing(AccountStatus::name))
        .forEach(
            a -> {
              Map<String, Object> watches = new LinkedHashMap<>();
              String watchState =
                  switch (a.state()) {
                    case READY -> "watching";
                    case SYNCING -> "syncing";
                    case CONNECTING, WAITING, STANDBY, REFUSED, FAILED, STOPPED -> "stopped";
                  };
              watches.put(watchState, a.watchedKinds());
              watches.put(
                  "notPermitted",
                  a.unwatchableKinds().stream().map(AccountsView::notPermitted).toList());
              Map<String, Object> account = new LinkedHashMap<>();
              account.put("account", a.name());
              account.put("state", a.state().name());
              account.put("watches", watches);
              accounts.add(account);
            });
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("accounts", accounts);
    return body;
  }

  /** {@code Kind.group: reason}, as the cluster side reports an unwatchable kind. */
  private static Map<String, Object> notPermitted(String described) {
    int separator = described.indexOf(": ");
    Map<String, Object> kind = new LinkedHashMap<>();
    kind.put("kind", separator < 0 ? described : described.substring(0, separator));
    kind.put("reason", separator < 0 ? null : described.substring(separator + 2));
    return kind;
  }

  private static Set<AccountState> states(List<String> given) throws QueryParameters.BadParameter {
    Set<AccountState> states = EnumSet.noneOf(AccountState.class);
    for (String value : given) {
      Optional<Set<AccountState>> armory =
          ARMORY_STATES.entrySet().stream()
              .filter(e -> e.getKey().equalsIgnoreCase(value.trim()))
              .map(Map.Entry::getValue)
              .findFirst();
      if (armory.isPresent()) {
        states.addAll(armory.get());
        continue;
      }
      try {
        states.add(AccountState.valueOf(value.trim().toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw new QueryParameters.BadParameter(
            "State.Name",
            "query parameter 'State.Name' must be one of ConfigLoaded, Healthy, DiscoveryError,"
                + " Stopped (Armory's names) or CONNECTING, SYNCING, READY, FAILED, STOPPED, got '"
                + value
                + "'");
      }
    }
    return states;
  }

  /** {@code offset}, or Armory's spelling {@code offtset}; both may be given if they agree. */
  private static int offset(QueryParameters query) throws QueryParameters.BadParameter {
    Optional<Integer> offset = query.integer("offset", 0, Integer.MAX_VALUE);
    Optional<Integer> armory = query.integer("offtset", 0, Integer.MAX_VALUE);
    if (offset.isPresent() && armory.isPresent() && !offset.equals(armory)) {
      throw new QueryParameters.BadParameter(
          "offtset",
          "query parameters 'offset' and 'offtset' (Armory's spelling of it) disagree: give one");
    }
    return offset.or(() -> armory).orElse(0);
  }

  private static Set<String> orderedSet(String... names) {
    return new LinkedHashSet<>(List.of(names));
  }
}
