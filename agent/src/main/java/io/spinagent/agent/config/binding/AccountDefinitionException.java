package io.spinagent.agent.config.binding;

/**
 * A dynamic account Clouddriver asked for that this agent refuses. The message names the account,
 * the field of {@code AccountDefinition} (as the protocol spells it) and the problem, e.g. {@code
 * account 'prod-eu': kubeconfig_contents: no context named 'x'}; it goes back to Clouddriver in the
 * command's result.
 */
public final class AccountDefinitionException extends Exception {

  private final String account;
  private final String field;

  public AccountDefinitionException(String account, String field, String problem) {
    this(account, field, problem, null);
  }

  public AccountDefinitionException(String account, String field, String problem, Throwable cause) {
    super(
        (account.isEmpty() ? "account definition" : "account '" + account + "'")
            + ": "
            + field
            + ": "
            + problem,
        cause);
    this.account = account;
    this.field = field;
  }

  public String account() {
    return account;
  }

  public String field() {
    return field;
  }
}
