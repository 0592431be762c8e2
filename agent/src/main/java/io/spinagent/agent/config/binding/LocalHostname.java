package io.spinagent.agent.config.binding;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The name of the host (in Kubernetes: the pod) the agent runs on, the default {@code agent.id}.
 */
final class LocalHostname {

  private LocalHostname() {}

  static String get() {
    // Kubernetes sets HOSTNAME to the pod name; asking the resolver could wait on DNS for nothing.
    String fromEnvironment = System.getenv("HOSTNAME");
    if (fromEnvironment != null && !fromEnvironment.isBlank()) {
      return fromEnvironment.trim();
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "spinagent";
    }
  }
}
