package io.spinagent.plugin.cache;

import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.cache.format.FormatOptions;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The cache format settings of each account, as its agent reported them: {@code
 * onlySpinnakerManaged} leaves out objects without Spinnaker's annotations, like Clouddriver's own
 * caching agent does for an account configured that way.
 */
public final class AccountFormatOptions implements Function<String, FormatOptions> {

  private final Supplier<AccountRegistry> registry;

  /**
   * @param registry the registry, looked up late: it is built after the cache it notifies
   */
  public AccountFormatOptions(Supplier<AccountRegistry> registry) {
    this.registry = registry;
  }

  @Override
  public FormatOptions apply(String account) {
    AccountRegistry accounts = registry.get();
    if (accounts == null) {
      return FormatOptions.DEFAULTS;
    }
    return accounts
        .find(account)
        .filter(a -> a.reported() != null)
        .map(
            a ->
                FormatOptions.DEFAULTS.withOnlySpinnakerManaged(
                    a.reported().getOnlySpinnakerManaged()))
        .orElse(FormatOptions.DEFAULTS);
  }
}
