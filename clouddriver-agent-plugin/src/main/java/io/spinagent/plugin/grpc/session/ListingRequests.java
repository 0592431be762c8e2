package io.spinagent.plugin.grpc.session;

import io.spinagent.protocol.v1.AccountDecision;
import io.spinagent.protocol.v1.AccountDecisions;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.PluginMessage;
import io.spinagent.protocol.v1.ResyncRequest;
import io.spinagent.protocol.v1.Role;
import java.util.List;

/**
 * How the plugin asks an agent for a new complete listing of kinds whose listing this replica
 * cannot finish (it saw the END but not the BEGIN: it restarted, or the account moved here,
 * mid-listing): a {@link ResyncRequest} from protocol version 2 on; version 1 agents know none, and
 * are told to list every kind of the account.
 */
final class ListingRequests {

  /** Why the listing is asked for, as the agent and the log are told. */
  static final String REASON =
      "this replica saw the end of a listing whose beginning it did not see"
          + " (it restarted, or the account moved here, mid-listing)";

  private ListingRequests() {}

  /**
   * @param committedSequence how far the account's stream is committed, which a version 1 agent is
   *     told with its decision
   */
  static PluginMessage frame(
      String account, List<Kind> kinds, long committedSequence, int protocolVersion) {
    if (protocolVersion >= 2) {
      return PluginMessage.newBuilder()
          .setResyncRequest(
              ResyncRequest.newBuilder().setAccount(account).addAllKinds(kinds).setReason(REASON))
          .build();
    }
    return PluginMessage.newBuilder()
        .setDecisions(
            AccountDecisions.newBuilder()
                .addAccounts(
                    AccountDecision.newBuilder()
                        .setAccount(account)
                        .setAccepted(true)
                        .setRole(Role.ROLE_CACHING)
                        .setResyncRequired(true)
                        .setCommittedSequence(committedSequence)))
        .build();
  }
}
