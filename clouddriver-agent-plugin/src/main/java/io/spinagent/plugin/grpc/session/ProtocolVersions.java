package io.spinagent.plugin.grpc.session;

import io.spinagent.protocol.v1.ProtocolVersion;
import java.util.List;

/** The protocol versions this plugin speaks, and the choice of one for a session. */
final class ProtocolVersions {

  static final List<Integer> SUPPORTED =
      List.of(ProtocolVersion.PROTOCOL_VERSION_1_VALUE, ProtocolVersion.PROTOCOL_VERSION_2_VALUE);

  private ProtocolVersions() {}

  /** The highest version both sides speak, or 0 when there is none. */
  static int negotiate(List<Integer> offered) {
    return offered.stream().filter(SUPPORTED::contains).max(Integer::compare).orElse(0);
  }
}
