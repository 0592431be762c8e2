package io.spinagent.agent.cluster;

import io.spinagent.agent.config.binding.AccountDefinitionBinder;
import io.spinagent.agent.config.binding.AccountDefinitionException;
import io.spinagent.protocol.v1.Command;
import io.spinagent.protocol.v1.CommandResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out Clouddriver's dynamic account commands (AddAccount, UpdateAccount, RemoveAccount) on
 * the {@link ClusterManager}. A command is accepted once the definition is valid and the account is
 * started (or stopped); the account then reaches Clouddriver the usual way, announced with
 * AccountsChanged once its cluster is identified.
 */
public final class AccountCommands {

  private static final Logger log = LoggerFactory.getLogger(AccountCommands.class);

  private final String agentId;
  private final ClusterManager clusters;
  private final boolean noProxy;

  /**
   * @param noProxy {@code kubernetes.noProxy}: the accounts Clouddriver adds connect directly too
   */
  public AccountCommands(String agentId, ClusterManager clusters, boolean noProxy) {
    this.agentId = agentId;
    this.clusters = clusters;
    this.noProxy = noProxy;
  }

  /** Never throws: whatever goes wrong is the result's error. Blocks while an account stops. */
  public CommandResult execute(Command command) {
    CommandResult.Builder result = CommandResult.newBuilder().setCommandId(command.getCommandId());
    try {
      String done =
          switch (command.getCommandCase()) {
            case ADD_ACCOUNT -> {
              clusters.addDynamic(
                  AccountDefinitionBinder.bind(command.getAddAccount().getAccount(), noProxy));
              yield "added";
            }
            case UPDATE_ACCOUNT -> {
              clusters.updateDynamic(
                  AccountDefinitionBinder.bind(command.getUpdateAccount().getAccount(), noProxy));
              yield "updated";
            }
            case REMOVE_ACCOUNT -> {
              String name = command.getRemoveAccount().getName();
              if (name.isEmpty()) {
                throw new AccountDefinitionException("", "name", "is required");
              }
              clusters.removeDynamic(name);
              yield "removed";
            }
            // Disconnect and unknown commands are the stream's own.
            default ->
                throw new IllegalArgumentException(
                    "not an account command: " + command.getCommandCase());
          };
      log.info(
          "Agent '{}': Clouddriver's command {}: account '{}' {}",
          agentId,
          command.getCommandId(),
          accountOf(command),
          done);
      return result.setOk(true).build();
    } catch (AccountDefinitionException e) {
      log.warn(
          "Agent '{}': refused Clouddriver's command {}: {}",
          agentId,
          command.getCommandId(),
          e.getMessage());
      return result.setOk(false).setError(e.getMessage()).build();
    } catch (RuntimeException e) {
      log.error(
          "Agent '{}': Clouddriver's command {} for account '{}' failed",
          agentId,
          command.getCommandId(),
          accountOf(command),
          e);
      return result
          .setOk(false)
          .setError(
              "account '"
                  + accountOf(command)
                  + "': the agent failed to carry out the"
                  + " command: "
                  + e)
          .build();
    }
  }

  private static String accountOf(Command command) {
    return switch (command.getCommandCase()) {
      case ADD_ACCOUNT -> command.getAddAccount().getAccount().getName();
      case UPDATE_ACCOUNT -> command.getUpdateAccount().getAccount().getName();
      case REMOVE_ACCOUNT -> command.getRemoveAccount().getName();
      default -> "";
    };
  }
}
