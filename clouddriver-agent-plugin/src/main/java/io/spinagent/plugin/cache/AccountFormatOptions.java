package io.spinagent.plugin.cache;

import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.cache.format.FormatOptions;
import java.util.function.Function;

/**
 * The cache format settings of each account, as its agent reported them: {@code
 * onlySpinnakerManaged} leaves out objects without Spinnaker's annotations, like Clouddriver's own
 * caching agent does for an account configured that way.
 */
public final class AccountFormatOptions implements Function<String, FormatOptions> {

  private final AccountRegistry registry;

  public AccountFormatOptions(AccountRegistry registry) {
    this.registry = registry;
  }

  @Override
  public FormatOptions apply(String account) {
    return registry
        .find(account)
        .filter(a -> a.reported() != null)
        .map(
            a ->
                FormatOptions.DEFAULTS.withOnlySpinnakerManaged(
                    a.reported().getOnlySpinnakerManaged()))
        .orElse(FormatOptions.DEFAULTS);
  }
}
