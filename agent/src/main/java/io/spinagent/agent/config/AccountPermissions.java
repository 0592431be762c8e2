package io.spinagent.agent.config;

import java.util.List;

/**
 * Fiat roles for one account ({@code kubernetes.accounts[].permissions}), carried over to the
 * account Clouddriver sees. Both lists empty means the account is unrestricted, as in Spinnaker.
 *
 * @param read roles that may see the account's resources ({@code READ})
 * @param write roles that may deploy through the account ({@code WRITE})
 */
public record AccountPermissions(List<String> read, List<String> write) {

  public static final AccountPermissions UNRESTRICTED =
      new AccountPermissions(List.of(), List.of());

  public AccountPermissions {
    read = List.copyOf(read);
    write = List.copyOf(write);
  }

  public boolean isRestricted() {
    return !read.isEmpty() || !write.isEmpty();
  }
}
