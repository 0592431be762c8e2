package io.spinagent.plugin.grpc.session;

import io.spinagent.protocol.v1.AccountDecision;
import io.spinagent.protocol.v1.AccountInfo;
import io.spinagent.protocol.v1.Hello;
import io.spinagent.protocol.v1.PluginMessage;
import io.spinagent.protocol.v1.Welcome;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The two frames that open a session: what an agent's Hello must say before the session acts on it,
 * and the Welcome that answers it. The claims between them are {@link AccountClaims}'; the session
 * registers the agent and sends the Welcome.
 */
final class Handshake {

  private Handshake() {}

  /** A Hello the session may act on. */
  record Greeting(String agentId, int protocolVersion, Set<String> accountNames) {}

  /**
   * Checks a Hello: an agent id, a protocol version both sides speak, and valid accounts, each
   * listed once.
   *
   * @throws ProtocolViolation naming what is wrong
   */
  static Greeting check(Hello hello) {
    if (hello.getAgentId().isBlank()) {
      throw ProtocolViolation.invalid("hello.agent_id is required");
    }
    int version = ProtocolVersions.negotiate(hello.getProtocolVersionsList());
    if (version == 0) {
      throw ProtocolViolation.precondition(
          "agent '"
              + hello.getAgentId()
              + "' speaks protocol versions "
              + hello.getProtocolVersionsList()
              + ", this plugin supports "
              + ProtocolVersions.SUPPORTED
              + ": upgrade the agent or the plugin");
    }
    Set<String> names = new LinkedHashSet<>();
    for (AccountInfo account : hello.getAccountsList()) {
      FrameValidation.validate(account);
      if (!names.add(account.getName())) {
        throw ProtocolViolation.invalid("hello lists account '" + account.getName() + "' twice");
      }
    }
    return new Greeting(hello.getAgentId(), version, names);
  }

  /**
   * The Welcome of a session: the chosen version, who answers, and the decision on each account.
   */
  static PluginMessage welcome(
      int protocolVersion,
      String sessionId,
      String replicaId,
      int heartbeatIntervalSeconds,
      List<AccountDecision> decisions) {
    return PluginMessage.newBuilder()
        .setWelcome(
            Welcome.newBuilder()
                .setProtocolVersion(protocolVersion)
                .setSessionId(sessionId)
                .setReplicaId(replicaId)
                .setHeartbeatIntervalSeconds(heartbeatIntervalSeconds)
                .addAllAccounts(decisions))
        .build();
  }
}
